/** Riders (src/db/riders.ts) on libSQL (the file client the Node app uses): see riders-cases.ts. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { it } from 'vitest';
import { type Db, schema } from '../../src/db/client';
import { libsqlFileClient } from '../../src/db/libsql-file';
import { meterLibsql } from '../../src/db/round-trips';
import { riderCases } from './riders-cases';

it('reads ride on the next round trip of a request over libSQL, which answers as before', async () => {
  const db = drizzle(meterLibsql(libsqlFileClient(join(mkdtempSync(join(tmpdir(), 'riders-')), 'x.db'))), { schema });
  await migrate(db, { migrationsFolder: 'drizzle' });
  await db.run('insert into users (id) values (1)' as never).catch(() => undefined);
  await riderCases(db as unknown as Db, 'libsql');
});
