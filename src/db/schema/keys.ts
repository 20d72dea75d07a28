import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);

/** SSH keys. `fingerprint_sha256` is unique across all users (GitLab app/models/key.rb). */
export const keys = sqliteTable(
  'keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    title: text('title').notNull(),
    key: text('key').notNull(),
    keyType: text('key_type').notNull(),
    bits: integer('bits').notNull(),
    fingerprint: text('fingerprint').notNull(),
    fingerprintSha256: text('fingerprint_sha256').notNull(),
    usageType: text('usage_type').notNull().default('auth_and_signing'),
    expiresAt: ts('expires_at'),
    lastUsedAt: ts('last_used_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('keys_fingerprint_sha256').on(t.fingerprintSha256), index('keys_user').on(t.userId, t.id)],
);

export const gpgKeys = sqliteTable(
  'gpg_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    key: text('key').notNull(),
    primaryKeyid: text('primary_keyid'),
    fingerprint: text('fingerprint'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('gpg_keys_user').on(t.userId, t.id), uniqueIndex('gpg_keys_fingerprint').on(t.fingerprint)],
);
