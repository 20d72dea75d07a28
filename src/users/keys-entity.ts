/** SSH and GPG key presenters (GitLab lib/api/entities/ssh_key.rb, gpg_key.rb). Pure. */
import type { gpgKeys, keys } from '../db/schema';
import { publishableKey } from './ssh-key';
import { iso } from '../platform/time';

export type KeyRow = typeof keys.$inferSelect;
export type GpgKeyRow = typeof gpgKeys.$inferSelect;

/**
 * Entities::SSHKey in GitLab's order. `key` is `Key#publishable_key`: the stored comment is
 * replaced by `<owner name> (<host>)` on every read, so comments (often e-mail addresses) never leak.
 */
export const sshKeyEntity = (k: KeyRow, ownerName: string, host: string) => ({
  id: k.id,
  title: k.title,
  created_at: iso(k.createdAt),
  expires_at: iso(k.expiresAt),
  key: publishableKey(k.key, ownerName, host),
  usage_type: k.usageType,
});

/** Entities::GpgKey. */
export const gpgKeyEntity = (k: GpgKeyRow) => ({
  id: k.id,
  key: k.key,
  created_at: iso(k.createdAt),
});
