/** Entities::EnvironmentBasic (lib/api/entities/environment_basic.rb): what a deployment shows of its environment. */
import { z } from 'zod';
import type { environments } from '../db/schema';
import { id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type EnvironmentRow = typeof environments.$inferSelect;

export const EnvironmentBasicSchema = obj({
  id,
  name: z.string(),
  slug: z.string(),
  external_url: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
}).meta({ id: 'EnvironmentBasic' });
export type EnvironmentBasic = z.infer<typeof EnvironmentBasicSchema>;

export const environmentBasic = (e: EnvironmentRow): EnvironmentBasic => ({
  id: e.id,
  name: e.name,
  slug: e.slug,
  external_url: e.externalUrl ?? null,
  created_at: iso(e.createdAt),
  updated_at: iso(e.updatedAt),
});
