/**
 * Writing feature gates as Flipper's ActiveRecord adapter does (flipper adapters/active_record.rb):
 * every operation first adds the feature row; enabling the boolean gate clears every other gate,
 * disabling it clears them all; a percentage replaces the previous one; actors and groups are sets.
 * The statements of one POST go to storage in one batch, with the read of the result.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { featureGates, features } from '../db/schema';
import { flagsStampBump } from './flags';

export type GateOp =
  | { op: 'enable' | 'disable' }
  | { op: 'percentage'; key: 'percentage_of_actors' | 'percentage_of_time'; value: number }
  | { op: 'enableIn' | 'disableIn'; key: 'actors' | 'groups'; value: string };

export function gateStatements(db: Db, name: string, ops: readonly GateOp[], now = Date.now()): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [
    db.insert(features).values({ key: name, createdAt: now, updatedAt: now }).onConflictDoUpdate({ target: features.key, set: { updatedAt: now } }),
  ];
  const ofFeature = eq(featureGates.featureKey, name);
  const insert = (key: string, value: string) => db.insert(featureGates).values({ featureKey: name, key, value, createdAt: now }).onConflictDoNothing();
  for (const o of ops) {
    if (o.op === 'enable' || o.op === 'disable') {
      out.push(db.delete(featureGates).where(ofFeature));
      if (o.op === 'enable') out.push(insert('boolean', 'true'));
    } else if (o.op === 'percentage') {
      out.push(db.delete(featureGates).where(and(ofFeature, eq(featureGates.key, o.key))));
      if (o.value !== 0) out.push(insert(o.key, String(o.value)));
    } else if (o.op === 'enableIn') {
      out.push(insert(o.key, o.value));
    } else if (o.op === 'disableIn') {
      out.push(db.delete(featureGates).where(and(ofFeature, eq(featureGates.key, o.key), eq(featureGates.value, o.value))));
    }
  }
  // Every isolate's cached snapshot is stale from this write on (flags.ts).
  out.push(flagsStampBump(db));
  return out;
}

/** `Feature.remove`: the feature and its gates go; nothing happens for a name never persisted. */
export const removeStatements = (db: Db, name: string): BatchItem<'sqlite'>[] => [
  db.delete(featureGates).where(eq(featureGates.featureKey, name)),
  db.delete(features).where(sql`${features.key} = ${name}`),
  flagsStampBump(db),
];
