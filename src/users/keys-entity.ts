/** SSH and GPG key presenters (GitLab lib/api/entities/ssh_key.rb, gpg_key.rb). Pure. */
import { z } from 'zod';
import type { gpgKeys, keys } from '../db/schema';
import { publishableKey } from './ssh-key';
import { id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type KeyRow = typeof keys.$inferSelect;
export type GpgKeyRow = typeof gpgKeys.$inferSelect;

/** Key#usage_type (`enum usage_type:`). */
export const USAGE_TYPES = ['auth_and_signing', 'auth', 'signing'] as const;

/**
 * Entities::SSHKey in GitLab's order. `key` is `Key#publishable_key`: the stored comment is
 * replaced by `<owner name> (<host>)` on every read, so comments (often e-mail addresses) never leak.
 */
export const SSHKeySchema = obj({
  id,
  title: z.string(),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
  key: z.string(),
  usage_type: z.enum(USAGE_TYPES),
}).meta({ id: 'SSHKey' });
export type SSHKey = z.infer<typeof SSHKeySchema>;

export const sshKeyEntity = (k: KeyRow, ownerName: string, host: string): SSHKey => ({
  id: k.id,
  title: k.title,
  created_at: iso(k.createdAt),
  expires_at: iso(k.expiresAt),
  key: publishableKey(k.key, ownerName, host),
  usage_type: k.usageType as SSHKey['usage_type'],
});

export const GpgKeySchema = obj({ id, key: z.string(), created_at: timestamp }).meta({ id: 'GpgKey' });
export type GpgKey = z.infer<typeof GpgKeySchema>;

/** Entities::GpgKey. */
export const gpgKeyEntity = (k: GpgKeyRow): GpgKey => ({
  id: k.id,
  key: k.key,
  created_at: iso(k.createdAt),
});
