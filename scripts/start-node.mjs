#!/usr/bin/env node
// `npm run start:node`: the self-hosted Node server (libSQL file database, filesystem blobs),
// compiled to dist/node.mjs first (scripts/build-node.mjs: plain node uses ~70 MB less memory than
// running the sources under tsx). Set NODE_OPTIONS=--enable-source-maps for stack traces in src/
// (it costs ~30 MB).
import { mkdirSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';

mkdirSync('.data', { recursive: true });
const built = spawnSync(process.execPath, ['scripts/build-node.mjs', 'src/node.ts', 'dist/node.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
if (built.status !== 0) process.exit(built.status ?? 1);
const child = spawn(process.execPath, ['dist/node.mjs'], { stdio: 'inherit', env: process.env });
child.on('exit', (code) => process.exit(code ?? 0));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
