#!/usr/bin/env node
// `npm run start:node`: the self-hosted Node server (libSQL file database, filesystem blobs).
import { mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';

mkdirSync('.data', { recursive: true });
const child = spawn('npx', ['--no-install', 'tsx', 'src/node.ts'], { stdio: 'inherit', env: process.env });
child.on('exit', (code) => process.exit(code ?? 0));
