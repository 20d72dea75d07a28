/**
 * What goes with a deleted project or group (platform/cascade.ts): its hooks with their deliveries
 * and logs, and a project's outbox rows. Rows are named by sub-select.
 */
import { inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { webHookDeliveries, webHookEvents, webHookLogs, webHooks } from '../db/schema';
import type { Cascade, IdSelect } from '../platform/cascade';

function hooksGone(db: Db, hookIds: ReturnType<Db['select']> | never) {
  return [db.delete(webHookLogs).where(inArray(webHookLogs.webHookId, hookIds as never)), db.delete(webHookDeliveries).where(inArray(webHookDeliveries.webHookId, hookIds as never))];
}

export const hooksCascade: Cascade = {
  project: (db, ids: IdSelect) => {
    const hookIds = db.select({ id: webHooks.id }).from(webHooks).where(inArray(webHooks.projectId, ids as never));
    const eventIds = db.select({ id: webHookEvents.id }).from(webHookEvents).where(inArray(webHookEvents.projectId, ids as never));
    return {
      statements: [
        ...hooksGone(db, hookIds as never),
        db.delete(webHookDeliveries).where(inArray(webHookDeliveries.eventId, eventIds)),
        db.delete(webHookEvents).where(inArray(webHookEvents.projectId, ids as never)),
        db.delete(webHooks).where(inArray(webHooks.projectId, ids as never)),
      ],
    };
  },
  group: (db, ids: IdSelect) => {
    const hookIds = db.select({ id: webHooks.id }).from(webHooks).where(inArray(webHooks.groupId, ids as never));
    return { statements: [...hooksGone(db, hookIds as never), db.delete(webHooks).where(inArray(webHooks.groupId, ids as never))] };
  },
};
