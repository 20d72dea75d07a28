/** Email presenter (GitLab lib/api/entities/email.rb). Pure. */
import { z } from 'zod';
import { emails } from '../db/schema';
import { id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type EmailRow = typeof emails.$inferSelect;

export const EmailSchema = obj({ id, email: z.string(), confirmed_at: timestamp.nullable() }).meta({ id: 'Email' });
export type Email = z.infer<typeof EmailSchema>;

export const emailEntity = (e: EmailRow): Email => ({ id: e.id, email: e.email, confirmed_at: e.confirmedAt == null ? null : iso(e.confirmedAt) });
