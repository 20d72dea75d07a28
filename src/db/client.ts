/**
 * The `Db` port: Drizzle over D1 or libSQL, one type for both. D1 has no interactive
 * transactions, so writes that touch several rows go through `db.batch([...])` (both drivers
 * run a batch atomically) and races are settled with unique indexes and conditional updates.
 */
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import * as schema from './schema';

export type Schema = typeof schema;

export type Db = BaseSQLiteDatabase<'async', unknown, Schema> & {
  batch<U extends BatchItem<'sqlite'>, T extends Readonly<[U, ...U[]]>>(batch: T): Promise<BatchResponse<T>>;
};

export { schema };
