import { drizzle } from 'drizzle-orm/d1';
import { type Db, schema } from './client';

export const d1Db = (binding: D1Database): Db => drizzle(binding, { schema }) as unknown as Db;
