/** Member presenter (lib/api/entities/member.rb): UserBasic merged with the membership. Pure. */
import type { UserRow } from '../platform/context';
import type { members } from '../db/schema';
import { iso } from '../platform/time';
import { userBasic } from '../users/user-entity';

type MemberRow = typeof members.$inferSelect;

export const memberEntity = (m: MemberRow, u: UserRow, x: { base: string; createdBy?: UserRow | null }) => ({
  ...userBasic(u, { base: x.base }),
  access_level: m.accessLevel,
  created_at: iso(m.createdAt),
  ...(x.createdBy ? { created_by: userBasic(x.createdBy, { base: x.base }) } : {}),
  expires_at: m.expiresAt ?? null,
});
