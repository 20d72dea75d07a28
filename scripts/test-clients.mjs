#!/usr/bin/env node
// Real-client compatibility stage (`npm run test:clients`, part of `npm test`).
//
// Starts the real Workers build under `wrangler dev` on a free port with a fresh local D1/R2 state, then drives it
// with two unmodified GitLab clients: python-gitlab (Debian's python3-gitlab under /usr/bin/python3) and
// @gitbeaker/rest. Each client script prints one `PASS <case>` or `FAIL <case> :: <reason>` line per case; this
// script counts them and closes with `clients: N passed, M failed` (exit 1 on any failure).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const clientsDir = join(root, 'scripts', 'clients');
const rootToken = process.env.ROOT_TOKEN || 'glpat-local-dev-root-token';
const PYTHON = process.env.CLIENTS_PYTHON || '/usr/bin/python3';
const CLIENT_TIMEOUT_MS = 100_000;
const READY_TIMEOUT_MS = 60_000;

const work = mkdtempSync(join(tmpdir(), 'wfapi-clients-'));
const persist = join(work, 'state');
const serverLog = join(work, 'server.log');
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' };

let passed = 0;
let failed = 0;
const failures = [];
let server = null;
let currentClient = null;

function record(client, line) {
  const pass = /^PASS (.*)$/.exec(line);
  const fail = /^FAIL (.*?)(?: :: (.*))?$/.exec(line);
  if (pass) {
    passed++;
    console.log(`  ok    ${client}: ${pass[1]}`);
  } else if (fail) {
    failed++;
    failures.push(`${client}: ${fail[1]}${fail[2] ? ` :: ${fail[2]}` : ''}`);
    console.log(`  FAIL  ${client}: ${fail[1]}${fail[2] ? ` :: ${fail[2]}` : ''}`);
  } else if (line.trim()) {
    console.log(`        ${client}| ${line}`);
  }
}

// Failures found by this runner itself; the reason may span lines (server log excerpts).
function failCase(client, name, reason) {
  failed++;
  failures.push(`${client}: ${name} :: ${reason.split('\n')[0]}`);
  console.log(`  FAIL  ${client}: ${name} :: ${reason}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// wrangler dev runs as npx -> node (wrangler) -> workerd; it is started in its own process group so that the
// whole tree is ended together (by that group id only).
function stopServer() {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

async function waitForExit(child, ms) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

function tail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

// Public keys for the SSH-key cases: fresh ones from ssh-keygen; without it the fixed keys of test/fixtures/keys.ts
// (when that file exists), else keys embedded in the client scripts (CLIENT_SSH_KEYS left empty).
function sshKeys(count) {
  const probe = spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' });
  if (!probe.error) {
    const keys = [];
    for (let i = 0; i < count; i++) {
      const file = join(work, `key${i}`);
      const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `client-check-${i}@example.com`, '-f', file], {
        stdio: 'ignore',
      });
      if (r.status === 0) keys.push(readFileSync(`${file}.pub`, 'utf8').trim());
    }
    if (keys.length === count) return keys;
  }
  const fixtures = join(root, 'test', 'fixtures', 'keys.ts');
  if (existsSync(fixtures)) {
    const found = readFileSync(fixtures, 'utf8').match(/(?:ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp\d+) AAAA[A-Za-z0-9+/=]+/g) ?? [];
    const unique = [...new Set(found)];
    if (unique.length >= count) return unique.slice(0, count);
  }
  return [];
}

// CLIENTS_ONLY="python-gitlab mr,gitbeaker mr" runs just those client scripts (a quicker loop while writing cases).
const only = process.env.CLIENTS_ONLY ? new Set(process.env.CLIENTS_ONLY.split(',').map((s) => s.trim())) : null;

function runClient(client, command, args, extraEnv) {
  if (only && !only.has(client)) return Promise.resolve();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    currentClient = child;
    let buf = '';
    let stderr = '';
    let sawEnd = false;
    const onLine = (line) => {
      if (line === 'END') sawEnd = true;
      else record(client, line);
    };
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i).replace(/\r$/, ''));
        buf = buf.slice(i + 1);
      }
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      failCase(client, 'suite finished in time', `killed after ${CLIENT_TIMEOUT_MS / 1000}s`);
      child.kill('SIGKILL');
    }, CLIENT_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      failCase(client, 'suite started', String(err));
      resolve();
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (buf) onLine(buf);
      if (!sawEnd || code !== 0) {
        const detail = stderr.trim().split('\n').slice(-15).join('\n      ');
        failCase(client, 'suite ran to the end', `exit ${code ?? signal}${detail ? `\n      ${detail}` : ''}`);
      }
      resolve();
    });
  });
}

async function main() {
  const port = await freePort();
  // A second wrangler dev (someone's `npm run dev`) would hold the default inspector port.
  const inspectorPort = await freePort();
  const base = `http://127.0.0.1:${port}`;

  const migrate = spawnSync(
    'npx',
    ['--no-install', 'wrangler', 'd1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    { cwd: root, env, encoding: 'utf8' },
  );
  if (migrate.status !== 0) {
    failCase('server', 'migrations applied', `${migrate.stdout ?? ''}${migrate.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n'));
    return;
  }

  const logFd = openSync(serverLog, 'a');
  server = spawn(
    'npx',
    [
      '--no-install', 'wrangler', 'dev', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', persist,
      // Every response the clients get is checked against its route's declared schema (platform/response-check.ts).
      '--var', `ROOT_TOKEN:${rootToken}`, '--var', 'VALIDATE_RESPONSES:true', '--log-level', process.env.CLIENTS_LOG_LEVEL || 'warn', '--show-interactive-dev-session=false', '--inspector-port', String(inspectorPort),
    ],
    { cwd: root, env, stdio: ['ignore', logFd, logFd], detached: true },
  );
  closeSync(logFd);

  // The root account is bootstrapped by the first request; /user answering 200 means the app and its D1 are up.
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let ready = false;
  let last = '';
  while (Date.now() < deadline && server.exitCode === null) {
    try {
      const res = await fetch(`${base}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': rootToken }, signal: AbortSignal.timeout(5000) });
      last = `${res.status} ${(await res.text()).slice(0, 200)}`;
      if (res.ok) {
        ready = true;
        break;
      }
    } catch (err) {
      last = String(err?.cause?.code ?? err);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!ready) {
    failCase('server', 'ready', `GET /api/v4/user never answered 200 (last: ${last})\n${tail(serverLog)}`);
    return;
  }
  console.log(`clients: server ready on ${base}`);

  const keys = sshKeys(8);
  const common = { GITLAB_URL: base, GITLAB_ROOT_TOKEN: rootToken };

  const probe = spawnSync(PYTHON, ['-c', 'import gitlab, sys; sys.stdout.write(gitlab.__version__)'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    failCase(
      'python-gitlab',
      'import gitlab',
      `${PYTHON} cannot import gitlab (${(probe.stderr || String(probe.error ?? `exit ${probe.status}`)).trim().split('\n').pop()}); ` +
        'install it with: apt-get update && apt-get install -y python3-gitlab (.ci/run does this on CI)',
    );
  } else {
    console.log(`clients: python-gitlab ${probe.stdout}`);
    await runClient('python-gitlab', PYTHON, [join(clientsDir, 'python_gitlab_check.py')], {
      ...common,
      CLIENT_SSH_KEYS: keys.slice(0, 4).join('\n'),
      PYTHONUNBUFFERED: '1',
    });
    // Merge requests, repository, protected branches and approvals: a workflow of its own, with its own deadline.
    await runClient('python-gitlab mr', PYTHON, [join(clientsDir, 'python_gitlab_mr_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Runners (issue 14): registration, verify, lists and filters, runner.save(), project and group runners.
    await runClient('python-gitlab runners', PYTHON, [join(clientsDir, 'python_gitlab_runners_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Project export and import (issue 15): exports.create/refresh/download, import_project, imports.get.
    await runClient('python-gitlab import-export', PYTHON, [join(clientsDir, 'python_gitlab_import_export_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Environments, deployments, approvals and a deployment's merge requests (issue 16).
    await runClient('python-gitlab deployments', PYTHON, [join(clientsDir, 'python_gitlab_deployments_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Feature flags (issue 17): gl.features.set/list, feature.delete(), over the paths 3.12 really sends.
    await runClient('python-gitlab features', PYTHON, [join(clientsDir, 'python_gitlab_features_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Geo nodes (issue 17): gl.geonodes list/get/status/save/repair/delete, current_failures.
    await runClient('python-gitlab geo', PYTHON, [join(clientsDir, 'python_gitlab_geo_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Application settings (issue 17): gl.settings.get()/save() with a list and a legacy alias, effects, restore.
    await runClient('python-gitlab settings', PYTHON, [join(clientsDir, 'python_gitlab_settings_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Linked epics and the dependency list, following merges and the default branch (issue 16), over gl.http_*.
    await runClient('python-gitlab follow', PYTHON, [join(clientsDir, 'python_gitlab_follow_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Repository files and a branch in an empty project (issue 18): project.files.*, ProjectFile.save()/delete().
    await runClient('python-gitlab files', PYTHON, [join(clientsDir, 'python_gitlab_files_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Discussions on issues, merge requests (diff positions, resolving, the merge it blocks) and commits (issue 18).
    await runClient('python-gitlab discussions', PYTHON, [join(clientsDir, 'python_gitlab_discussions_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Tags, protected tags, merge base, commit refs and archives (issue 18).
    await runClient('python-gitlab tags', PYTHON, [join(clientsDir, 'python_gitlab_tags_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Linked issues and resource label/milestone/state events (issue 18): issue.links, issue/mr.resource*events.
    await runClient('python-gitlab links', PYTHON, [join(clientsDir, 'python_gitlab_links_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Accounts and namespaces (issue 18 item 3): emails, memberships, key lookups, namespace existence, custom attributes.
    await runClient('python-gitlab accounts', PYTHON, [join(clientsDir, 'python_gitlab_accounts_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Project webhooks (issue 18 item 4): project.hooks create/list/get/save/delete, the test trigger's refusal;
    // project and group hooks' test trigger, events and resend delivered to a local receiver (gl.http_*).
    await runClient('python-gitlab hooks', PYTHON, [join(clientsDir, 'python_gitlab_hooks_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
    // Group sharing (issue 18 item 3): project.share/unshare, group.share/unshare and the access a share gives;
    // group.shared_projects.list(), invited_groups, groups/shared and members_all through a share.
    await runClient('python-gitlab share', PYTHON, [join(clientsDir, 'python_gitlab_share_check.py')], { ...common, PYTHONUNBUFFERED: '1' });
  }

  console.log(`clients: @gitbeaker/rest ${JSON.parse(readFileSync(join(root, 'node_modules/@gitbeaker/rest/package.json'), 'utf8')).version}`);
  await runClient('gitbeaker', process.execPath, [join(clientsDir, 'gitbeaker-check.mjs')], {
    ...common,
    CLIENT_SSH_KEYS: keys.slice(4, 8).join('\n'),
  });
  await runClient('gitbeaker mr', process.execPath, [join(clientsDir, 'gitbeaker-mr-check.mjs')], common);
  await runClient('gitbeaker deployments', process.execPath, [join(clientsDir, 'gitbeaker-deployments-check.mjs')], common);
  // Feature flags (raw requests), ApplicationSettings and GeoNodes (issue 17).
  await runClient('gitbeaker admin', process.execPath, [join(clientsDir, 'gitbeaker-admin-check.mjs')], common);
  await runClient('gitbeaker follow', process.execPath, [join(clientsDir, 'gitbeaker-follow-check.mjs')], common);
  // RepositoryFiles and Branches.create on an empty project (issue 18).
  await runClient('gitbeaker files', process.execPath, [join(clientsDir, 'gitbeaker-files-check.mjs')], common);
  await runClient('gitbeaker discussions', process.execPath, [join(clientsDir, 'gitbeaker-discussions-check.mjs')], common);
  await runClient('gitbeaker tags', process.execPath, [join(clientsDir, 'gitbeaker-tags-check.mjs')], common);
  // Linked issues and resource events (issue 18): IssueLinks, IssueLabelEvents, MergeRequestLabelEvents.
  await runClient('gitbeaker links', process.execPath, [join(clientsDir, 'gitbeaker-links-check.mjs')], common);
  await runClient('gitbeaker accounts', process.execPath, [join(clientsDir, 'gitbeaker-accounts-check.mjs')], common);
  // ProjectHooks (issue 18 item 4); GroupHooks, test triggers, events and resend delivered to a local receiver.
  await runClient('gitbeaker hooks', process.execPath, [join(clientsDir, 'gitbeaker-hooks-check.mjs')], common);

  // A response that broke its route's declared schema fails the stage, once per route and problem.
  const violations = new Set(
    readFileSync(serverLog, 'utf8')
      .split('\n')
      .filter((l) => l.includes('response schema violation'))
      .map((l) => l.slice(l.indexOf('{'))),
  );
  for (const v of violations) failCase('server', 'response schema', v);

  const errors = readFileSync(serverLog, 'utf8')
    .split('\n')
    .filter((l) => /\b(error|uncaught|exception)\b/i.test(l))
    // wrangler's own update/telemetry lookups fail offline; they are not the app's errors
    .filter((l) => !/ENOTFOUND|EAI_AGAIN/.test(l));
  if (errors.length) {
    console.log(`clients: server log has ${errors.length} error line(s); last ones:\n${errors.slice(-10).join('\n')}`);
  }
}

let exiting = false;
async function finish(code) {
  if (exiting) return;
  exiting = true;
  if (currentClient && currentClient.exitCode === null && currentClient.signalCode === null) currentClient.kill('SIGKILL');
  stopServer();
  if (!(await waitForExit(server, 5000))) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await waitForExit(server, 2000);
  }
  // CLIENTS_KEEP_LOG=<file> keeps the server log (with CLIENTS_LOG_LEVEL=log it has the app's console output).
  if (process.env.CLIENTS_KEEP_LOG) {
    try {
      copyFileSync(serverLog, process.env.CLIENTS_KEEP_LOG);
    } catch {
      // no log written
    }
  }
  rmSync(work, { recursive: true, force: true });
  if (failures.length) {
    console.log('\nclients: failed cases');
    for (const f of failures) console.log(`  - ${f}`);
  }
  console.log(`\nclients: ${passed} passed, ${failed} failed`);
  process.exit(code ?? (failed > 0 || passed === 0 ? 1 : 0));
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    failCase('runner', 'not interrupted', `received ${sig}`);
    finish(1);
  });
}

main()
  .catch((err) => failCase('runner', 'no internal error', err?.stack ?? String(err)))
  .finally(() => finish());
