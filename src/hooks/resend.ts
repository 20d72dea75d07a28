/**
 * WebHooks::Events::ResendService (lib/api/hooks/resend_hook.rb): a logged delivery is sent again
 * as it was (its request data, trigger, event UUID and idempotency key from the log), through the
 * same guard and log as any delivery; 201 `{response_status}` whatever the receiver answered, 422
 * with the reason when nothing could be sent.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { webHookLogs } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, recordNotFound } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { settingsOf } from '../settings/settings';
import { applicationLimit } from '../settings/rate-limits';
import { executeHook } from './execute';
import type { WebHookRow } from './hook-entity';
import { EVENT_HEADER, TRIGGER_OF } from './payloads';

/** Entities::RetryWebhookEvent. */
/** The scope item of a hook's project or group (`hook.parent` in GitLab's rate limiter scopes). */
export const hookParent = (hook: Pick<WebHookRow, 'projectId' | 'groupId'>) => (hook.projectId != null ? `project:${hook.projectId}` : `group:${hook.groupId}`);

export const ResendSchema = z.object({ response_status: z.number().nullable() });

const KIND_OF_TRIGGER = Object.fromEntries(Object.entries(TRIGGER_OF).map(([kind, trigger]) => [trigger, kind]));

export async function resendLog(c: Context<AppEnv>, caller: Caller, hook: WebHookRow | undefined, log: typeof webHookLogs.$inferSelect | undefined) {
  // resend_hook.rb: the hook is found, then the rate limit (5 a minute per hook parent and user), then the log.
  if (!hook) throw recordNotFound();
  await applicationLimit(c, 'web_hook_event_resend', [hookParent(hook), caller.user?.id]);
  if (!log) throw recordNotFound();
  const sent = JSON.parse(log.requestHeaders || '{}') as Record<string, string>;
  const run = await executeHook({
    db: c.var.db,
    config: c.var.config,
    settings: await settingsOf(c),
    hook,
    payload: log.requestData,
    eventName: EVENT_HEADER[KIND_OF_TRIGGER[log.trigger] ?? ''] ?? sent['X-Gitlab-Event'] ?? '',
    trigger: log.trigger,
    // The receiver can tell a resend from a new event: same idempotency key and event UUID.
    webhookUuid: sent['Idempotency-Key'] ?? crypto.randomUUID(),
    eventUuid: sent['X-Gitlab-Event-UUID'] ?? crypto.randomUUID(),
    instance: baseUrl(c),
  });
  const [first, ...rest] = run.statements;
  await c.var.db.batch([first, ...rest]);
  if (run.httpStatus == null) throw new ApiError(422, { message: run.message });
  return c.json({ response_status: run.httpStatus }, 201);
}
