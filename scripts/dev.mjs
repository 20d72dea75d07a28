#!/usr/bin/env node
// `npm run dev`: apply migrations to the local D1 database and start `wrangler dev` on
// http://127.0.0.1:8787 with local D1, R2, Queues and Durable Objects (all under .wrangler/).
// The root administrator and its token are created on the first request; the token is printed here.
import { spawn, spawnSync } from 'node:child_process';

const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' };
const port = process.env.PORT ?? '8787';
const rootToken = process.env.ROOT_TOKEN ?? 'glpat-local-dev-root-token';

const migrate = spawnSync('npx', ['--no-install', 'wrangler', 'd1', 'migrations', 'apply', 'DB', '--local'], {
  stdio: 'inherit',
  env: { ...env, CI: 'true' }, // non-interactive: do not ask for confirmation
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const args = ['--no-install', 'wrangler', 'dev', '--ip', '127.0.0.1', '--port', port, '--var', `ROOT_TOKEN:${rootToken}`];
if (process.argv.includes('--quiet')) args.push('--log-level', 'warn');
const child = spawn('npx', args, { stdio: 'inherit', env });

// Bootstrap the root account as soon as the server answers, then print how to use it.
const url = `http://127.0.0.1:${port}/api/v4/user`;
for (let i = 0; i < 120; i++) {
  await new Promise((r) => setTimeout(r, 500));
  try {
    const res = await fetch(url, { headers: { 'PRIVATE-TOKEN': rootToken } });
    if (res.ok) {
      console.log(`\nworkflow-api is ready on http://127.0.0.1:${port}/api/v4`);
      console.log(`administrator: root   personal access token: ${rootToken}`);
      console.log(`try: curl -H "PRIVATE-TOKEN: ${rootToken}" http://127.0.0.1:${port}/api/v4/user\n`);
      break;
    }
  } catch {
    // not up yet
  }
}
const stop = () => child.kill('SIGINT');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
child.on('exit', (code) => process.exit(code ?? 0));
