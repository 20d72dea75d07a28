/**
 * WebHookService#execute for one hook: the URL with its variables, the guard, GitLab's and the
 * custom headers, the request, the log row (WebHookLog: headers with the token and custom header
 * values redacted, variable values masked, bodies truncated, status, duration in seconds) and
 * the hook's failure state (AutoDisabling: a 2xx enables, anything else backs off).
 */
import { eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { webHookLogs, webHooks } from '../db/schema';
import type { Config } from '../platform/config';
import { checkOutbound } from '../import-export/export-upload';
import type { Settings } from '../settings/settings';
import { backoff } from './auto-disabling';
import type { WebHookRow } from './hook-entity';
import { postHook } from './hook-http';
import { GITLAB_VERSION } from './payload-parts';
import { decryptToken } from './token-crypto';
import { interpolatedUrl, maskBasicAuth, maskHeaderValues, missingVariables, openVars } from './hook-variables';

/** WebHookService#make_request_with_auth: credentials in the URL go as basic auth, not in the URL. */
function withoutUserinfo(url: URL): [URL, string | null] {
  if (!url.username && !url.password) return [url, null];
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  const bytes = new TextEncoder().encode(pair);
  return [bare, `Basic ${btoa(String.fromCharCode(...bytes))}`];
}

/** What WebHookLog keeps of the request data. */
const REQUEST_DATA_LIMIT = 64 * 1024;

export interface Execution {
  ok: boolean;
  /** The HTTP status, or null when no answer came. */
  httpStatus: number | null;
  /** The answer's body, or the error (TestHooks' 422 message). */
  message: string;
  statements: BatchItem<'sqlite'>[];
}

export interface ExecuteInput {
  db: Db;
  config: Config;
  settings: Settings;
  hook: WebHookRow;
  payload: string;
  /** X-Gitlab-Event, e.g. `Issue Hook`. */
  eventName: string;
  /** web_hook_logs.trigger, e.g. `issue_hooks`. */
  trigger: string;
  webhookUuid: string;
  eventUuid: string;
  deliveryId?: number | null;
  /** X-Gitlab-Instance: this instance's URL. */
  instance: string;
}

export async function executeHook(x: ExecuteInput): Promise<Execution> {
  const started = Date.now();
  const token = await decryptToken(x.config, x.hook.encryptedToken);
  const vars = await openVars(x.config, x.hook.urlVariables);
  const custom = await openVars(x.config, x.hook.customHeaders);
  const own: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${GITLAB_VERSION}`,
    'Idempotency-Key': x.webhookUuid,
    'X-Gitlab-Webhook-UUID': x.webhookUuid,
    'X-Gitlab-Instance': x.instance,
    'X-Gitlab-Event': x.eventName,
    'X-Gitlab-Event-UUID': x.eventUuid,
    ...(token ? { 'X-Gitlab-Token': token } : {}),
  };
  // build_custom_headers.merge(build_headers): custom headers first, and never over GitLab's own (names compared as HTTP does, ignoring case).
  const ownNames = new Set(Object.keys(own).map((k) => k.toLowerCase()));
  const customKept = custom.filter(([k]) => !ownNames.has(k.toLowerCase()));
  const headers: Record<string, string> = { ...Object.fromEntries(customKept), ...own };
  let status: string;
  let httpStatus: number | null = null;
  let responseHeaders: Record<string, string> = {};
  let responseBody = '';
  // interpolated_url, and the guard again on it: a variable must not smuggle in a host the URL check never saw.
  const target = interpolatedUrl(x.hook.url, vars);
  const checked = target === null ? { error: 'Invalid URL template' } : await checkOutbound(target, x.settings, { schemes: ['http', 'https'], requireResolved: false });
  if ('error' in checked) {
    status = 'internal error';
    responseBody = target === null ? `Invalid URL template. Missing key ${missingVariables(x.hook.url, vars)[0]}` : `URL is blocked: ${checked.error}`;
  } else {
    try {
      const [url, basic] = withoutUserinfo(checked.url);
      const res = await postHook(url, checked.address, basic ? { ...headers, Authorization: basic } : headers, x.payload, x.hook.enableSslVerification);
      httpStatus = res.status;
      status = String(res.status);
      responseHeaders = maskHeaderValues(res.headers, vars);
      responseBody = res.body;
    } catch (err) {
      // WebHookService's rescue: the error's message, status `internal error`. A connection error can
      // name the host, which may come from a variable: its values are masked as in the headers.
      status = 'internal error';
      responseBody = maskHeaderValues({ e: String((err as Error)?.message ?? err).slice(0, 1024) }, vars).e;
    }
  }
  const now = Date.now();
  const ok = httpStatus != null && httpStatus >= 200 && httpStatus < 300;
  // WebHookLog: custom header values and the token redacted; the URL as configured, with `{variables}` and no credentials.
  const logged = { ...Object.fromEntries(customKept.map(([k]) => [k, '[REDACTED]'])), ...own, ...(token ? { 'X-Gitlab-Token': '[REDACTED]' } : {}) };
  const statements: BatchItem<'sqlite'>[] = [
    x.db.insert(webHookLogs).values({
      webHookId: x.hook.id,
      deliveryId: x.deliveryId ?? null,
      trigger: x.trigger,
      url: maskBasicAuth(x.hook.url),
      requestHeaders: JSON.stringify(logged),
      requestData: x.payload.length > REQUEST_DATA_LIMIT ? JSON.stringify({ truncated: true }) : x.payload,
      responseHeaders: JSON.stringify(responseHeaders),
      responseBody,
      responseStatus: status,
      executionDuration: (now - started) / 1000,
      createdAt: now,
    }),
  ];
  if (ok) {
    if (x.hook.recentFailures !== 0 || x.hook.disabledUntil != null) statements.push(x.db.update(webHooks).set({ recentFailures: 0, disabledUntil: null }).where(eq(webHooks.id, x.hook.id)));
  } else {
    const next = backoff(x.hook, now);
    if (next) statements.push(x.db.update(webHooks).set(next).where(eq(webHooks.id, x.hook.id)));
  }
  return { ok, httpStatus, message: responseBody, statements };
}
