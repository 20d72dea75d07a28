/** Member presenter (lib/api/entities/member.rb): UserBasic merged with the membership. Pure. */
import { z } from 'zod';
import type { UserRow } from '../platform/context';
import type { members } from '../db/schema';
import { date, int, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { userBasic, UserBasicSchema } from '../users/user-entity';

type MemberRow = typeof members.$inferSelect;

export const MemberSchema = UserBasicSchema.extend({
  access_level: int,
  created_at: timestamp,
  created_by: UserBasicSchema.optional(),
  expires_at: date.nullable(),
}).meta({ id: 'Member' });
export type Member = z.infer<typeof MemberSchema>;

export const memberEntity = (m: MemberRow, u: UserRow, x: { base: string; createdBy?: UserRow | null }): Member => ({
  ...userBasic(u, { base: x.base }),
  access_level: m.accessLevel,
  created_at: iso(m.createdAt),
  ...(x.createdBy ? { created_by: userBasic(x.createdBy, { base: x.base }) } : {}),
  expires_at: m.expiresAt ?? null,
});
