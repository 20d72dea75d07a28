/**
 * The one Hono app both runtimes serve. `createApp(deps)` wires the ports onto the context,
 * mounts every resource under /api/v4 (alphabetically), and ends with GitLab's catch-all.
 */
import { type Context, Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import type { AppEnv, Deps } from './platform/context';
import { methodNotAllowed } from './platform/errors';
import { Router, type RouteRecord } from './platform/router';
import { notFoundHandler, onError } from './platform/error-handler';
import { requestBasics } from './platform/request';
import { responseCheck } from './platform/response-check';
import { roundTripMeter } from './platform/round-trip-meter';
import { mountApi } from './routes';
import { registerCascade } from './platform/cascade';
import { ciCascade } from './ci/cascade';
import { deploymentsCascade } from './deployments/cascade';
import { mountRunnerFastPath } from './ci/runner-poll-fast';
import { runnerEarlyAnswers } from './ci/runner-poll-first';
import { answerEarlyInFetch, type EarlyAnswers } from './platform/early-answers';
import { todosCascade } from './todos/cascade';
import { notesCascade } from './notes/cascade';
import { approvalsCascade } from './approvals/cascade';
import { mergeRequestsCascade } from './merge-requests/cascade';
import { issuesCascade } from './issues/cascade';
import { planningCascade } from './planning/cascade';
import { repositoryCascade } from './repository/cascade';
import { projectsCascade } from './projects/cascade';
import { authCascade } from './auth/cascade';
import { usersCascade } from './users/cascade';
import { pushHooks } from './repository/push';
import { mergeRequestPushHooks, refreshOnPush } from './merge-requests/refresh';
import { resetApprovalsOnPush } from './approvals/refresh';
import { mergeRequestApprovals } from './merge-requests/approvals-port';
import { mergeRequestApprovalsImpl } from './approvals/merge-request-approvals';
import { authenticate } from './auth/authenticate';
import { checkCachedStatements } from './db/prepared';
import { enforceRateLimits } from './settings/rate-limits';
import { deadLetterHandlers, jobHandlers } from './platform/jobs-consumer';
import { failProjectImport, runProjectImport } from './import-export/import-job';
import { IMPORT_JOB } from './import-export/import-job-message';
import { importExportCascade } from './import-export/import-cascade';
import { EXPORT_JOB, runProjectExport } from './import-export/export-job';
import { exportCascade } from './import-export/export-cascade';
import { dependenciesCascade } from './dependencies/cascade';
import { scanOnDefaultBranch, scanOnPush } from './dependencies/scanner';
import { defaultBranchHooks } from './projects/default-branch-hooks';
import { positivePaginationFlag } from './platform/pagination';
import { featureEnabled } from './features/flags';
import { failMergeRequestRebase, REBASE_JOB, runMergeRequestRebase } from './merge-requests/rebase-job';
import { hooksCascade } from './hooks/cascade';
import { eventRecorders } from './platform/events';
import { recordHookEvent, webHookNudge } from './hooks/outbox';
import { recordPushEvent } from './hooks/push-events';
import { DELIVER_JOB, DISPATCH_JOB } from './hooks/jobs';
import { failDelivery, runDeliver, runDispatch } from './hooks/dispatch';

export interface CreatedApp {
  app: Hono<AppEnv>;
  routes: RouteRecord[];
  /** What the app answers before its router; `app.fetch` asks it already, a server may ask it earlier. */
  early: EarlyAnswers;
}

// What each domain removes with a deleted user, group, project, issue or merge request, highest
// domain first: rows that point at others go before the rows they point at (platform/cascade.ts).
for (const part of [hooksCascade, dependenciesCascade, deploymentsCascade, importExportCascade, exportCascade, ciCascade, todosCascade, notesCascade, approvalsCascade, mergeRequestsCascade, issuesCascade, planningCascade, repositoryCascade, projectsCascade, authCascade, usersCascade]) registerCascade(part);
// Extension points (platform/extension.ts): what lower domains use from higher ones.
pushHooks.register(refreshOnPush);
pushHooks.register(scanOnPush);
pushHooks.register(recordPushEvent);
// Webhooks: lower domains record events into the outbox through platform/events.ts.
eventRecorders.register(recordHookEvent);
defaultBranchHooks.register(scanOnDefaultBranch);
mergeRequestPushHooks.register(resetApprovalsOnPush);
mergeRequestApprovals.install(mergeRequestApprovalsImpl);
positivePaginationFlag.install({ enabled: (c) => featureEnabled(c, 'only_positive_pagination_values') });
// Queue consumers by message type (platform/jobs-consumer.ts), the same on Workers and Node.
jobHandlers[IMPORT_JOB] = runProjectImport;
jobHandlers[EXPORT_JOB] = runProjectExport;
deadLetterHandlers[IMPORT_JOB] = failProjectImport;
jobHandlers[REBASE_JOB] = runMergeRequestRebase;
deadLetterHandlers[REBASE_JOB] = failMergeRequestRebase;
jobHandlers[DISPATCH_JOB] = runDispatch;
jobHandlers[DELIVER_JOB] = runDeliver;
deadLetterHandlers[DELIVER_JOB] = failDelivery;

export function createApp(deps: Deps): CreatedApp {
  const app = new Hono<AppEnv>({ getPath: apiPath });
  app.use('*', roundTripMeter({ report: deps.config.reportRoundTrips, repeats: deps.config.reportRepeatedReads }));
  if (deps.config.validateResponses) {
    app.use('*', responseCheck());
    checkCachedStatements(deps.db);
  }
  const inject = (c: Context<AppEnv>) => {
    c.set('db', deps.db);
    c.set('blobs', deps.blobs);
    c.set('jobs', deps.jobs);
    c.set('config', deps.config);
    c.set('rateLimiter', deps.rateLimiter);
    c.set('assets', deps.assets);
    // Hono's `c.var` getter copies every variable into a new object on each read (Object.fromEntries),
    // and handlers read `c.var.db` many times per request: ~0.4 ms of a merge request page's CPU on
    // Node. A view that reads each variable where it is (`c.get`) answers the same.
    Object.defineProperty(c, 'var', { value: new Proxy({}, { get: (_, key) => c.get(key as never) }), configurable: true });
  };
  // A known runner's polls skip the rest of the chain (ci/runner-poll-fast.ts).
  mountRunnerFastPath(app, '/api/v4', deps, inject);
  app.use('*', requestBasics());
  app.use('*', async function injectDeps(c, next) {
    inject(c);
    await next();
  });
  // After a request that recorded webhook events: one dispatch message (hooks/outbox.ts).
  app.use('*', webHookNudge());

  const guards = { authenticate, enforceRateLimits };
  const api = new Router(app, '/api/v4', guards);
  const web = new Router(app, '', guards);
  mountApi(api, web);

  const patterns = [...api.records, ...web.records].map((r) => ({ method: r.method, re: pathRegex(r.path) }));
  app.notFound((c) => {
    // A known path with another method: Grape's 405 (reference 1 §2.2), not the catch-all 404.
    const path = new URL(c.req.url).pathname.replace(/\.json$/, '');
    const allowed = patterns.filter((p) => p.re.test(path)).map((p) => p.method);
    if (allowed.length && !allowed.includes(c.req.method as never)) {
      const err = methodNotAllowed();
      c.header('Allow', [...new Set(allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].join(', '));
      return c.json(err.body, 405);
    }
    return notFoundHandler(c);
  });
  app.onError(onError);
  // A known runner's cached polls are answered before the router (ci/runner-poll-first.ts); Node's
  // server asks `early` before it builds the web Request (node-server.ts).
  const early = runnerEarlyAnswers('/api/v4', deps);
  answerEarlyInFetch(app, early);
  return { app, routes: [...api.records, ...web.records], early };
}

/**
 * Grape::Router.normalize_path: GitLab's API squeezes repeated slashes and drops a trailing one, so
 * python-gitlab 3.12's `/features//<name>` and `/features/` reach their routes. Only under /api/v4:
 * the web routes (OAuth, uploads) keep their paths as sent.
 */
function apiPath(req: Request): string {
  const path = getPath(req);
  return path.startsWith('/api/v4/') ? path.replace(/\/{2,}/g, '/').replace(/(.)\/+$/, '$1') : path;
}

/** `/users/:id/keys` → a regex over one URL segment per parameter (encoded `%2F` stays inside a segment). */
function pathRegex(path: string): RegExp {
  const src = path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return new RegExp(`^${src}$`);
}
