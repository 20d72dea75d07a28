/**
 * The runner-facing API (lib/api/ci/runner.rb; reference gitlab-behaviour-2.md 5.4): what
 * gitlab-runner sends to register, verify, unregister, reset its token and poll for jobs. These
 * routes are authorized by the token in the body (or the `RUNNER-TOKEN` header newer runners send),
 * not by a user's credentials.
 *
 * Polling costs no storage round trip for a runner this isolate knows (runner-tokens.ts): the token's
 * runner is cached, the contact is written at most every 40-55 minutes, and the queue stamp is
 * derived from the cached row. No job is ever scheduled here yet, so a poll answers 204. A known
 * runner's JSON poll and verify are answered before the generic chain (runner-poll-fast.ts); these
 * routes answer everything else.
 */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import { ciRunnerNamespaces, ciRunnerProjects, ciRunners } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { createHash } from 'node:crypto';
import { forbidden, grapeError, validationFailed } from '../platform/errors';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { iso } from '../platform/time';
import { g, params } from '../platform/validate';
import { settingsOf } from '../settings/settings';
import { clientIp } from '../users/audit';
import { type CachedRunner, digestOf, forgetRunner, heartbeat, infoColumns, reportsChange, newAuthenticationToken, registrationTokenRead, type RunnerRow, type RunnerType, runnerByToken, tokenExpiry } from './runner-tokens';
import { runnerChangeStatements } from './runner-changes';
import { createRunner } from './runner-create';
import { runnerErrors } from './runner-validation';

const TAGS = ['runners'];

/** Entities::Ci::RunnerRegistrationDetails. */
export const RunnerRegistrationDetailsSchema = z.object({ id: z.number().int(), token: z.string(), token_expires_at: z.string().nullable() });
/** Entities::Ci::ResetTokenResult for an authentication token. */
export const ResetTokenResultSchema = z.object({ token: z.string(), token_expires_at: z.string().nullable() });

const tokenOnly = params({ token: g.string().optional() });

/** The token: `token` in the body or query, else the `RUNNER-TOKEN` header; `token is missing` as Grape's `requires` says it. */
async function tokenOf(c: Context<AppEnv>): Promise<string> {
  const raw = await requestParams(c);
  const token = typeof raw.token === 'string' ? raw.token : (c.req.header('runner-token') ?? undefined);
  if (token === undefined) throw grapeError('token is missing');
  return token;
}

/** `authenticate_runner!`: the runner of a valid, unexpired token, with its contact noted; 403 otherwise. */
async function authenticateRunner(c: Context<AppEnv>) {
  const token = await tokenOf(c);
  const entry = await runnerByToken(c, token);
  if (!entry) throw forbidden();
  await authenticatedRunner(c, entry, await requestParams(c));
  return { token, runner: entry.runner };
}

const NOTHING_NEW: Partial<RunnerRow> = Object.freeze({});

/** The runner's contact noted, with what it reports (`info`): a promise only when that is written. */
export function authenticatedRunner(c: Context<AppEnv>, entry: CachedRunner, raw: Record<string, unknown>): Promise<unknown> | undefined {
  const info = raw.info && typeof raw.info === 'object' && !Array.isArray(raw.info) ? (raw.info as Record<string, unknown>) : undefined;
  const ip = clientIp(c);
  return heartbeat(c, entry, reportsChange(entry.runner, info, ip) ? infoColumns(info, ip) : NOTHING_NEW);
}

/**
 * POST /jobs/request's answer. A paused runner, a runner whose `last_update` is the current stamp,
 * and (no job is ever queued here yet) every other poll get the same answer: 204 with the stamp to
 * send back next time.
 */
export const pollAnswer = (c: Context<AppEnv>, runner: RunnerRow) => c.body(null, 204, { 'X-GitLab-Last-Update': queueStamp(runner) });

/** A fast path's answer as plain parts: what `plainAnswer` builds, or what a server writes itself (node-server.ts). */
export interface PlainAnswer {
  status: 200 | 204;
  headers: Record<string, string>;
  body: string | null;
}

/** The same answers as `pollAnswer` and `verifyAnswer`, with the given headers added. */
export function plainAnswerParts(kind: 'poll' | 'verify', token: string, runner: RunnerRow, headers: Record<string, string>): PlainAnswer {
  if (kind === 'poll') return { status: 204, headers: { ...headers, 'X-GitLab-Last-Update': queueStamp(runner) }, body: null };
  const body = JSON.stringify({ id: runner.id, token, token_expires_at: iso(runner.tokenExpiresAt) });
  return { status: 200, headers: { ...headers, 'Content-Type': 'application/json' }, body };
}

/**
 * The same answers built as one Response with plain headers (the fast path, which sets no context
 * headers): Hono's `c.header` keeps a Headers object, whose per-call validation was a visible share
 * of a cached poll on Node.
 */
export function plainAnswer(kind: 'poll' | 'verify', token: string, runner: RunnerRow, headers: Record<string, string>): Response {
  const a = plainAnswerParts(kind, token, runner, headers);
  return new Response(a.body, { status: a.status, headers: a.headers });
}

/** POST /runners/verify's answer. */
export const verifyAnswer = (c: Context<AppEnv>, token: string, runner: RunnerRow) => c.json({ id: runner.id, token, token_expires_at: iso(runner.tokenExpiresAt) }, 200);

/**
 * The runner's queue stamp (`X-GitLab-Last-Update`; GitLab keeps a random value in Redis and ticks it
 * when a job may be waiting). Nothing here ever queues a job, so the stamp only has to change when the
 * runner does: it is derived from the runner's id and last update.
 */
function queueStamp(runner: RunnerRow): string {
  const known = stamps.get(runner);
  if (known && known.updatedAt === runner.updatedAt) return known.stamp;
  // node:crypto hashes in place; WebCrypto's digest is a thread-pool job on Node and was the largest
  // single cost of a cached poll (issue 14's bench profile).
  const stamp = createHash('sha256').update(`${runner.id}:${runner.updatedAt}`).digest('hex').slice(0, 32);
  stamps.set(runner, { updatedAt: runner.updatedAt, stamp });
  return stamp;
}

/** Each cached row's stamp, computed once (a row that changes is a new object, or its updatedAt moved). */
const stamps = new WeakMap<RunnerRow, { updatedAt: number; stamp: string }>();

export function mountRunnerApi(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/runners',
      summary: 'Register a new runner with a registration token',
      tags: TAGS,
      noAuth: true,
      params: params(
        {
          token: g.string().optional(),
          description: g.string().optional(),
          maintainer_note: g.string().optional(),
          maintenance_note: g.string().optional(),
          info: g.hash().optional(),
          active: g.bool().optional(),
          paused: g.bool().optional(),
          locked: g.bool().optional(),
          run_untagged: g.bool().optional(),
          tag_list: g.csv().optional(),
          access_level: g.enum(['not_protected', 'ref_protected']).optional(),
          maximum_timeout: g.int().optional(),
        },
        [{ mutuallyExclusive: ['maintainer_note', 'maintenance_note'] }, { mutuallyExclusive: ['active', 'paused'] }],
      ),
      responses: { 201: RunnerRegistrationDetailsSchema },
    },
    async ({ c, p }) => {
      const token = await tokenOf(c);
      const db = c.var.db;
      const [[registrar], settings] = await Promise.all([registrationTokenRead(db, await digestOf(c, token)), settingsOf(c)]);
      // Ci::Runners::RegisterRunnerService: the instance token always; project and group tokens only
      // where valid_runner_registrars lists them; anything else is 403.
      const allowed = (settings.valid_runner_registrars as string[] | undefined) ?? ['project', 'group'];
      if (!registrar || (registrar.scope !== 'instance' && !allowed.includes(registrar.scope))) throw forbidden();
      const type: RunnerType = registrar.scope === 'instance' ? 'instance_type' : registrar.scope === 'group' ? 'group_type' : 'project_type';
      const attrs = {
        description: p.description ?? '',
        maintenanceNote: p.maintenance_note ?? p.maintainer_note ?? null,
        active: p.paused !== undefined ? !p.paused : (p.active ?? true),
        locked: p.locked ?? false,
        runUntagged: p.run_untagged ?? true,
        tagList: [...new Set((p.tag_list ?? []).map((t) => t.trim()).filter(Boolean))],
        accessLevel: p.access_level ?? 'not_protected',
        maximumTimeout: p.maximum_timeout ?? null,
      };
      const errors = runnerErrors(attrs);
      if (Object.keys(errors).length) throw validationFailed(errors);
      const created = await createRunner(c, settings, { type, ownerId: registrar.ownerId, registrationType: 'registration_token', columns: { ...attrs, ...infoColumns(p.info, clientIp(c)) } });
      if (!created) throw forbidden();
      return c.json({ id: created.id, token: created.token, token_expires_at: iso(created.expiresAt) }, 201);
    },
  );

  r.route(
    { method: 'POST', path: '/runners/verify', summary: "Validate a runner's authentication token", tags: TAGS, noAuth: true, params: params({ token: g.string().optional(), system_id: g.string().optional(), info: g.hash().optional() }), responses: { 200: RunnerRegistrationDetailsSchema } },
    async ({ c }) => {
      const { token, runner } = await authenticateRunner(c);
      return verifyAnswer(c, token, runner);
    },
  );

  r.route({ method: 'DELETE', path: '/runners', summary: 'Delete a registered runner with its authentication token', tags: TAGS, noAuth: true, params: tokenOnly, responses: { 204: null } }, async ({ c }) => {
    const { runner } = await authenticateRunner(c);
    const db = c.var.db;
    await db.batch([
      db.delete(ciRunnerProjects).where(eq(ciRunnerProjects.runnerId, runner.id)),
      db.delete(ciRunnerNamespaces).where(eq(ciRunnerNamespaces.runnerId, runner.id)),
      db.delete(ciRunners).where(eq(ciRunners.id, runner.id)),
      ...runnerChangeStatements(db, runner.id),
    ]);
    forgetRunner(db, runner.id);
    return c.body(null, 204);
  });

  r.route(
    { method: 'POST', path: '/runners/reset_authentication_token', summary: "Reset a runner's authentication token with the current one", tags: TAGS, noAuth: true, params: tokenOnly, responses: { 201: ResetTokenResultSchema } },
    async ({ c }) => {
      const { runner } = await authenticateRunner(c);
      const db = c.var.db;
      const now = Date.now();
      const token = newAuthenticationToken(runner.registrationType === 'authenticated_user' ? 'authenticated_user' : 'registration_token');
      const expiresAt = tokenExpiry(await settingsOf(c), runner.runnerType as RunnerType, now);
      await db.batch([db.update(ciRunners).set({ tokenDigest: await digestOf(c, token), tokenExpiresAt: expiresAt, updatedAt: now }).where(eq(ciRunners.id, runner.id)), ...runnerChangeStatements(db, runner.id, now)]);
      forgetRunner(db, runner.id);
      return c.json({ token, token_expires_at: iso(expiresAt) }, 201);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/jobs/request',
      summary: 'Request a job for the runner',
      tags: TAGS,
      noAuth: true,
      params: params({ token: g.string().optional(), system_id: g.string().optional(), last_update: g.string().optional(), info: g.hash().optional(), session: g.hash().optional() }),
      responses: { 201: z.record(z.string(), z.unknown()), 204: null },
    },
    async ({ c }) => {
      const { runner } = await authenticateRunner(c);
      return pollAnswer(c, runner);
    },
  );
}
