/** Member presenter (lib/api/entities/member.rb): UserBasic merged with the membership. Pure. */
import type { UserRow } from '../context';
import type { members } from '../db/schema';
import { iso } from '../lib/time';
import { userBasic } from './user';

type MemberRow = typeof members.$inferSelect;

export const memberEntity = (m: MemberRow, u: UserRow, x: { base: string; createdBy?: UserRow | null }) => ({
  ...userBasic(u, { base: x.base }),
  access_level: m.accessLevel,
  created_at: iso(m.createdAt),
  ...(x.createdBy ? { created_by: userBasic(x.createdBy, { base: x.base }) } : {}),
  expires_at: m.expiresAt ?? null,
});
