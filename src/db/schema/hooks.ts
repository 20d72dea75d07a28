import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });
const flag = (name: string, on = false) => bool(name).notNull().default(on);

/**
 * Project and group webhooks (GitLab's `web_hooks`, types ProjectHook and GroupHook). The secret
 * token is sent with every delivery, so it is stored encrypted (AES-GCM, hooks/token-crypto.ts),
 * never as a digest. `recent_failures` and `disabled_until` are WebHooks::AutoDisabling's state.
 */
export const webHooks = sqliteTable(
  'web_hooks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** `ProjectHook` or `GroupHook`. */
    type: text('type').notNull(),
    projectId: integer('project_id'),
    groupId: integer('group_id'),
    url: text('url').notNull(),
    name: text('name'),
    description: text('description'),
    encryptedToken: text('encrypted_token'),
    /**
     * URL variables and custom headers (WebHooks::Hook `attr_encrypted :url_variables` and
     * `:custom_headers`): null when there are none, else JSON `{"keys":[…],"sealed":"v1:…"}`. The
     * keys are public (the API shows them) and kept in the clear so an entity needs no decryption;
     * `sealed` holds the whole ordered map, encrypted like the token (hooks/hook-variables.ts).
     */
    urlVariables: text('url_variables'),
    customHeaders: text('custom_headers'),
    pushEvents: flag('push_events', true),
    tagPushEvents: flag('tag_push_events'),
    issuesEvents: flag('issues_events'),
    confidentialIssuesEvents: flag('confidential_issues_events'),
    mergeRequestsEvents: flag('merge_requests_events'),
    noteEvents: flag('note_events'),
    confidentialNoteEvents: flag('confidential_note_events'),
    jobEvents: flag('job_events'),
    pipelineEvents: flag('pipeline_events'),
    wikiPageEvents: flag('wiki_page_events'),
    deploymentEvents: flag('deployment_events'),
    featureFlagEvents: flag('feature_flag_events'),
    releasesEvents: flag('releases_events'),
    milestoneEvents: flag('milestone_events'),
    emojiEvents: flag('emoji_events'),
    resourceAccessTokenEvents: flag('resource_access_token_events'),
    resourceDeployTokenEvents: flag('resource_deploy_token_events'),
    memberEvents: flag('member_events'),
    projectEvents: flag('project_events'),
    subgroupEvents: flag('subgroup_events'),
    vulnerabilityEvents: flag('vulnerability_events'),
    repositoryUpdateEvents: flag('repository_update_events'),
    enableSslVerification: flag('enable_ssl_verification', true),
    pushEventsBranchFilter: text('push_events_branch_filter'),
    /** `wildcard`, `regex` or `all_branches` (WebHook#branch_filter_strategy). */
    branchFilterStrategy: text('branch_filter_strategy').notNull().default('wildcard'),
    recentFailures: integer('recent_failures').notNull().default(0),
    disabledUntil: ts('disabled_until'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('web_hooks_project').on(t.projectId), index('web_hooks_group').on(t.groupId)],
);

/**
 * The outbox: one row per event, written in the same batch as the write that caused it (so an event
 * is never lost after its write and never exists for a failed one), and only when some hook of the
 * project or its groups could want it. The dispatcher builds `payload` once, then fans out.
 */
export const webHookEvents = sqliteTable(
  'web_hook_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    uuid: text('uuid').notNull(),
    projectId: integer('project_id').notNull(),
    /** `issue`, `merge_request`, `note`, `push`, `tag_push`, `deployment`. */
    kind: text('kind').notNull(),
    action: text('action'),
    objectId: integer('object_id'),
    actorId: integer('actor_id'),
    confidential: flag('confidential'),
    /** What the row alone cannot say (changes, a push's refs): JSON. */
    data: text('data'),
    /** `pending` until dispatched into deliveries. */
    state: text('state').notNull().default('pending'),
    payload: text('payload'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('web_hook_events_uuid').on(t.uuid), index('web_hook_events_state').on(t.state, t.createdAt), index('web_hook_events_project').on(t.projectId)],
);

/** One event for one hook: the unit a Queue message delivers (idempotent: compare-and-set on `state`). */
export const webHookDeliveries = sqliteTable(
  'web_hook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventId: integer('event_id').notNull(),
    webHookId: integer('web_hook_id').notNull(),
    /** X-Gitlab-Webhook-UUID and Idempotency-Key: the same on every retry of this delivery. */
    uuid: text('uuid').notNull(),
    /** `pending`, `sending` (leased until `lease_until`), `delivered`, `failed`, `skipped`. */
    state: text('state').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    leaseUntil: ts('lease_until'),
    /** When a pending delivery is due (its backoff); the sweep re-sends those past due. */
    dueAt: ts('due_at').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('web_hook_deliveries_event_hook').on(t.eventId, t.webHookId), index('web_hook_deliveries_state').on(t.state, t.dueAt), index('web_hook_deliveries_hook').on(t.webHookId)],
);

/** Each request sent (GitLab's `web_hook_logs`), shown to maintainers by GET .../hooks/:hook_id/events. */
export const webHookLogs = sqliteTable(
  'web_hook_logs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    webHookId: integer('web_hook_id').notNull(),
    deliveryId: integer('delivery_id'),
    trigger: text('trigger').notNull(),
    url: text('url').notNull(),
    requestHeaders: text('request_headers').notNull(),
    requestData: text('request_data').notNull(),
    responseHeaders: text('response_headers').notNull(),
    responseBody: text('response_body').notNull(),
    responseStatus: text('response_status').notNull(),
    executionDuration: real('execution_duration').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('web_hook_logs_hook').on(t.webHookId, t.id)],
);
