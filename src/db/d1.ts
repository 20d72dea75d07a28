import { drizzle } from 'drizzle-orm/d1';
import { type Db, schema } from './client';
import { meterD1 } from './round-trips';

export const d1Db = (binding: D1Database): Db => drizzle(meterD1(binding), { schema }) as unknown as Db;
