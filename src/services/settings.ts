/**
 * Application settings: GitLab's defaults of a fresh instance (reference B §2.3) overlaid by the
 * JSON row an administrator edits through PUT /application/settings. Read lazily, once per request.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { applicationSettings } from '../db/schema';

export const SETTINGS_DEFAULTS = {
  admin_mode: false,
  abuse_notification_email: null as string | null,
  after_sign_out_path: null as string | null,
  after_sign_up_text: null as string | null,
  default_projects_limit: 100000,
  default_branch_protection: 2,
  default_project_creation: 2,
  default_project_visibility: 'private',
  default_group_visibility: 'private',
  default_snippet_visibility: 'private',
  restricted_visibility_levels: [] as string[],
  signup_enabled: true,
  password_authentication_enabled_for_web: true,
  password_authentication_enabled_for_git: true,
  session_expire_delay: 10080,
  minimum_password_length: 8,
  max_attachment_size: 100,
  max_artifacts_size: 100,
  max_import_size: 0,
  max_pages_size: 100,
  dsa_key_restriction: 0,
  rsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ecdsa_sk_key_restriction: 0,
  ed25519_key_restriction: 0,
  ed25519_sk_key_restriction: 0,
  personal_access_token_prefix: 'glpat-',
  issues_create_limit: 0,
  notes_create_limit: 300,
  users_get_by_id_limit: 300,
  users_get_by_id_limit_allowlist: [] as string[],
  raw_blob_request_limit: 300,
  user_default_external: false,
  user_defaults_to_private_profile: false,
  require_admin_approval_after_user_signup: false,
  send_user_confirmation_email: false,
  rate_limiting_response_text: null as string | null,
  throttle_authenticated_api_enabled: false,
  throttle_authenticated_api_requests_per_period: 7200,
  throttle_authenticated_api_period_in_seconds: 3600,
  throttle_unauthenticated_api_enabled: false,
  throttle_unauthenticated_api_requests_per_period: 3600,
  throttle_unauthenticated_api_period_in_seconds: 3600,
  require_personal_access_token_expiry: true,
  max_personal_access_token_lifetime: null as number | null,
  max_ssh_key_lifetime: null as number | null,
};

export type Settings = typeof SETTINGS_DEFAULTS & Record<string, unknown>;

export async function loadSettings(db: Db): Promise<Settings> {
  const row = await db.select({ data: applicationSettings.data }).from(applicationSettings).where(eq(applicationSettings.id, 1)).get();
  const overrides = row ? (JSON.parse(row.data) as Record<string, unknown>) : {};
  return { ...SETTINGS_DEFAULTS, ...overrides } as Settings;
}
