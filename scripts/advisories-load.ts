/**
 * Loads OSV advisories (https://ossf.github.io/osv-schema/) into the advisory store that flags the
 * dependency list's `vulnerabilities` (src/dependencies/advisories.ts). Inputs are OSV JSON files, each
 * one record or an array of records, or directories searched for them (an unzipped
 * https://osv-vulnerabilities.storage.googleapis.com/<ecosystem>/all.zip, a checkout of
 * github/advisory-database). Loading a record again replaces it; a withdrawn record is removed.
 *
 *   libSQL (the Node server's file, or a remote database):
 *     DATABASE_URL=file:data/workflow-api.sqlite npm run advisories:load -- osv/npm
 *   D1 (Workers): write the statements, then run them with wrangler:
 *     npm run advisories:load -- --sql advisories.sql osv/npm
 *     npx wrangler d1 execute workflow-api --remote --file advisories.sql
 *
 * The database must be migrated (`npm run db:migrate`, `wrangler d1 migrations apply`). Servers read
 * the store on every dependency list: no restart is needed.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { advisoryStatements } from '../src/dependencies/advisories';

const args = process.argv.slice(2);
const sqlAt = args.indexOf('--sql');
const sqlFile = sqlAt >= 0 ? args[sqlAt + 1] : undefined;
const inputs = args.filter((_, i) => sqlAt < 0 || (i !== sqlAt && i !== sqlAt + 1));
if (!inputs.length || (sqlAt >= 0 && !sqlFile)) {
  console.error('usage: advisories-load [--sql out.sql] <osv.json|dir>...   (without --sql: DATABASE_URL=libsql://…|file:…)');
  process.exit(2);
}

function* jsonFiles(path: string): Generator<string> {
  if (statSync(path).isDirectory()) for (const name of readdirSync(path).sort()) yield* jsonFiles(join(path, name));
  else if (path.endsWith('.json')) yield path;
}

const records: unknown[] = [];
for (const input of inputs)
  for (const file of jsonFiles(input)) {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    records.push(...(Array.isArray(doc) ? doc : [doc]));
  }
// Each record's statements stay together (a record is never half-loaded).
const perRecord = records.map((r) => advisoryStatements([r]));
const statements = perRecord.flat();

if (sqlFile) {
  writeFileSync(sqlFile, statements.map((s) => `${s};\n`).join(''));
  console.log(`${records.length} advisories: ${statements.length} statements written to ${sqlFile}`);
} else {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is required (libsql://…, http(s)://… or file:…), or --sql <file> for D1');
    process.exit(2);
  }
  const client = createClient({ url, authToken: process.env.LIBSQL_AUTH_TOKEN });
  // In chunks of whole records, each one transaction: a large feed never holds one huge transaction.
  let chunk: string[] = [];
  for (const [i, list] of perRecord.entries()) {
    chunk.push(...list);
    if (chunk.length >= 500 || i === perRecord.length - 1) {
      await client.batch(chunk, 'write');
      chunk = [];
    }
  }
  console.log(`${records.length} advisories loaded into ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  client.close();
}
