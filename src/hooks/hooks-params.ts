/** Parameters of the project and group hook APIs (project_hooks.rb, group_hooks.rb, helpers/web_hooks_helpers.rb). */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';
import { hashArray } from '../repository/protected-branches-params';
import { MAX_HEADER_NAME_LENGTH } from './hook-variables';

/** Event flags both hook kinds take, and the column each sets. */
export const COMMON_FLAGS = {
  push_events: 'pushEvents',
  tag_push_events: 'tagPushEvents',
  issues_events: 'issuesEvents',
  confidential_issues_events: 'confidentialIssuesEvents',
  merge_requests_events: 'mergeRequestsEvents',
  note_events: 'noteEvents',
  confidential_note_events: 'confidentialNoteEvents',
  job_events: 'jobEvents',
  pipeline_events: 'pipelineEvents',
  wiki_page_events: 'wikiPageEvents',
  deployment_events: 'deploymentEvents',
  feature_flag_events: 'featureFlagEvents',
  releases_events: 'releasesEvents',
  milestone_events: 'milestoneEvents',
  emoji_events: 'emojiEvents',
  resource_access_token_events: 'resourceAccessTokenEvents',
  resource_deploy_token_events: 'resourceDeployTokenEvents',
  vulnerability_events: 'vulnerabilityEvents',
  enable_ssl_verification: 'enableSslVerification',
} as const;
/** group_hooks.rb adds these. */
export const GROUP_FLAGS = { subgroup_events: 'subgroupEvents', member_events: 'memberEvents', project_events: 'projectEvents', repository_update_events: 'repositoryUpdateEvents' } as const;

const flags = <K extends string>(names: Record<K, string>) => Object.fromEntries(Object.keys(names).map((k) => [k, g.bool().optional()])) as unknown as Record<K, z.ZodOptional<ReturnType<typeof g.bool>>>;
const keyValue = z.object({ key: g.string(), value: g.string() }, { error: 'is invalid' });
const common = {
  name: g.string().optional(),
  description: g.string().optional(),
  token: g.string().optional(),
  push_events_branch_filter: g.string().optional(),
  branch_filter_strategy: g.enum(['wildcard', 'regex', 'all_branches'] as const).optional(),
  // web_hooks_helpers.rb `params :url_variables` / `:custom_headers`: arrays of {key, value}, as JSON or `url_variables[][key]=`.
  url_variables: hashArray(keyValue).optional(),
  custom_headers: hashArray(keyValue).optional(),
  ...flags(COMMON_FLAGS),
};
const groupCommon = { ...common, ...flags(GROUP_FLAGS) };

export const projectHookListParams = params({ id: g.string(), ...paginationParams });
export const projectHookParams = params({ id: g.string(), hook_id: g.int() });
export const createProjectHookParams = params({ id: g.string(), url: g.string(), ...common });
export const updateProjectHookParams = params({ id: g.string(), hook_id: g.int(), url: g.string().optional(), ...common });
export const groupHookListParams = projectHookListParams;
export const groupHookParams = projectHookParams;
export const createGroupHookParams = params({ id: g.string(), url: g.string(), ...groupCommon });
export const updateGroupHookParams = params({ id: g.string(), hook_id: g.int(), url: g.string().optional(), ...groupCommon });

/** ProjectHook triggers (lib/api/hooks/trigger_test.rb `values: ProjectHook.triggers.values`). */
export const TRIGGERS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'merge_requests_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'releases_events',
  'emoji_events',
  'resource_access_token_events',
  'vulnerability_events',
] as const;
export const testHookParams = params({ id: g.string(), hook_id: g.int(), trigger: g.enum(TRIGGERS) });
export const hookEventsParams = params({
  id: g.string(),
  hook_id: g.int(),
  status: g.csv().optional(),
  ...paginationParams,
});

/** POST …/hooks/:hook_id/events/:hook_log_id/resend (resend_hook.rb). */
export const resendHookParams = params({ id: g.string(), hook_id: g.int(), hook_log_id: g.int() });

/** PUT/DELETE …/hooks/:hook_id/url_variables/:key (lib/api/hooks/url_variables.rb). */
export const urlVariableParams = params({ id: g.string(), hook_id: g.int(), key: g.string() });
export const setUrlVariableParams = params({ id: g.string(), hook_id: g.int(), key: g.string(), value: g.string() });
/** …/hooks/:hook_id/custom_headers/:key (lib/api/hooks/custom_headers.rb): `key` carries a `limit:` validator. */
const headerName = () =>
  g.string().superRefine((s, ctx) => {
    if (s.length > MAX_HEADER_NAME_LENGTH) ctx.addIssue({ code: 'custom', message: `must be less than ${MAX_HEADER_NAME_LENGTH} characters`, input: s });
  });
export const customHeaderParams = params({ id: g.string(), hook_id: g.int(), key: headerName() });
export const setCustomHeaderParams = params({ id: g.string(), hook_id: g.int(), key: headerName(), value: g.string() });
