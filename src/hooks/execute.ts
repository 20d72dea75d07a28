/**
 * WebHookService#execute for one hook: the guard, GitLab's headers, the request, the log row
 * (WebHookLog: headers with the token redacted, bodies truncated, status, duration in seconds) and
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
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${GITLAB_VERSION}`,
    'Idempotency-Key': x.webhookUuid,
    'X-Gitlab-Webhook-UUID': x.webhookUuid,
    'X-Gitlab-Instance': x.instance,
    'X-Gitlab-Event': x.eventName,
    'X-Gitlab-Event-UUID': x.eventUuid,
    ...(token ? { 'X-Gitlab-Token': token } : {}),
  };
  let status: string;
  let httpStatus: number | null = null;
  let responseHeaders: Record<string, string> = {};
  let responseBody = '';
  const checked = await checkOutbound(x.hook.url, x.settings, { schemes: ['http', 'https'], requireResolved: false });
  if ('error' in checked) {
    status = 'internal error';
    responseBody = `URL is blocked: ${checked.error}`;
  } else {
    try {
      const res = await postHook(checked.url, checked.address, headers, x.payload, x.hook.enableSslVerification);
      httpStatus = res.status;
      status = String(res.status);
      responseHeaders = res.headers;
      responseBody = res.body;
    } catch (err) {
      // WebHookService's rescue: the error's message, status `internal error`.
      status = 'internal error';
      responseBody = String((err as Error)?.message ?? err).slice(0, 1024);
    }
  }
  const now = Date.now();
  const ok = httpStatus != null && httpStatus >= 200 && httpStatus < 300;
  const logged = { ...headers, ...(token ? { 'X-Gitlab-Token': '[REDACTED]' } : {}) };
  const statements: BatchItem<'sqlite'>[] = [
    x.db.insert(webHookLogs).values({
      webHookId: x.hook.id,
      deliveryId: x.deliveryId ?? null,
      trigger: x.trigger,
      url: x.hook.url,
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
