/**
 * GitLab's hook entities (lib/api/entities/hook.rb, project_hook.rb, group_hook.rb, web_hook_log.rb),
 * fields in GitLab's order. The token is never among them, nor the values of URL variables and
 * custom headers: only their keys (WebHook#masked_url_variables, #masked_custom_headers).
 */
import { z } from 'zod';
import type { webHookLogs, webHooks } from '../db/schema';
import { id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { alertStatus } from './auto-disabling';
import { storedKeys } from './hook-variables';

export type WebHookRow = typeof webHooks.$inferSelect;
export type WebHookLogRow = typeof webHookLogs.$inferSelect;

const b = z.boolean();
const hookShape = {
  id,
  url: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  created_at: timestamp,
  push_events: b,
  tag_push_events: b,
  merge_requests_events: b,
  repository_update_events: b,
  enable_ssl_verification: b,
  alert_status: z.enum(['executable', 'temporarily_disabled', 'disabled']),
  disabled_until: timestamp.nullable(),
  url_variables: z.array(obj({ key: z.string() })),
  push_events_branch_filter: z.string().nullable(),
  branch_filter_strategy: z.string(),
  custom_webhook_template: z.string().nullable(),
  custom_headers: z.array(obj({ key: z.string() })),
};

export const ProjectHookSchema = obj({
  ...hookShape,
  project_id: id,
  issues_events: b,
  confidential_issues_events: b,
  note_events: b,
  confidential_note_events: b,
  pipeline_events: b,
  wiki_page_events: b,
  deployment_events: b,
  feature_flag_events: b,
  job_events: b,
  releases_events: b,
  milestone_events: b,
  emoji_events: b,
  resource_access_token_events: b,
  resource_deploy_token_events: b,
  vulnerability_events: b,
}).meta({ id: 'ProjectHook' });

export const GroupHookSchema = obj({
  ...hookShape,
  group_id: id,
  issues_events: b,
  confidential_issues_events: b,
  note_events: b,
  confidential_note_events: b,
  pipeline_events: b,
  wiki_page_events: b,
  job_events: b,
  deployment_events: b,
  feature_flag_events: b,
  releases_events: b,
  subgroup_events: b,
  member_events: b,
  project_events: b,
  milestone_events: b,
  emoji_events: b,
  resource_access_token_events: b,
  resource_deploy_token_events: b,
  vulnerability_events: b,
}).meta({ id: 'GroupHook' });

export const WebHookLogSchema = obj({
  id,
  url: z.string(),
  trigger: z.string(),
  request_headers: z.record(z.string(), z.string()),
  request_data: z.unknown(),
  response_headers: z.record(z.string(), z.string()),
  response_body: z.string(),
  execution_duration: z.number(),
  response_status: z.string(),
  created_at: timestamp,
}).meta({ id: 'WebHookLog' });

function hookBase(h: WebHookRow, now: number) {
  return {
    id: h.id,
    url: h.url,
    name: h.name,
    description: h.description,
    created_at: iso(h.createdAt),
    push_events: h.pushEvents,
    tag_push_events: h.tagPushEvents,
    merge_requests_events: h.mergeRequestsEvents,
    repository_update_events: h.repositoryUpdateEvents,
    enable_ssl_verification: h.enableSslVerification,
    alert_status: alertStatus(h, now),
    disabled_until: iso(h.disabledUntil),
    url_variables: storedKeys(h.urlVariables),
    push_events_branch_filter: h.pushEventsBranchFilter,
    branch_filter_strategy: h.branchFilterStrategy,
    custom_webhook_template: null,
    custom_headers: storedKeys(h.customHeaders),
  };
}

export function projectHookEntity(h: WebHookRow, now = Date.now()): z.infer<typeof ProjectHookSchema> {
  return {
    ...hookBase(h, now),
    project_id: h.projectId!,
    issues_events: h.issuesEvents,
    confidential_issues_events: h.confidentialIssuesEvents,
    note_events: h.noteEvents,
    confidential_note_events: h.confidentialNoteEvents,
    pipeline_events: h.pipelineEvents,
    wiki_page_events: h.wikiPageEvents,
    deployment_events: h.deploymentEvents,
    feature_flag_events: h.featureFlagEvents,
    job_events: h.jobEvents,
    releases_events: h.releasesEvents,
    milestone_events: h.milestoneEvents,
    emoji_events: h.emojiEvents,
    resource_access_token_events: h.resourceAccessTokenEvents,
    resource_deploy_token_events: h.resourceDeployTokenEvents,
    vulnerability_events: h.vulnerabilityEvents,
  };
}

export function groupHookEntity(h: WebHookRow, now = Date.now()): z.infer<typeof GroupHookSchema> {
  return {
    ...hookBase(h, now),
    group_id: h.groupId!,
    issues_events: h.issuesEvents,
    confidential_issues_events: h.confidentialIssuesEvents,
    note_events: h.noteEvents,
    confidential_note_events: h.confidentialNoteEvents,
    pipeline_events: h.pipelineEvents,
    wiki_page_events: h.wikiPageEvents,
    job_events: h.jobEvents,
    deployment_events: h.deploymentEvents,
    feature_flag_events: h.featureFlagEvents,
    releases_events: h.releasesEvents,
    subgroup_events: h.subgroupEvents,
    member_events: h.memberEvents,
    project_events: h.projectEvents,
    milestone_events: h.milestoneEvents,
    emoji_events: h.emojiEvents,
    resource_access_token_events: h.resourceAccessTokenEvents,
    resource_deploy_token_events: h.resourceDeployTokenEvents,
    vulnerability_events: h.vulnerabilityEvents,
  };
}

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

export function webHookLogEntity(l: WebHookLogRow): z.infer<typeof WebHookLogSchema> {
  return {
    id: l.id,
    url: l.url,
    trigger: l.trigger,
    request_headers: parse(l.requestHeaders) as Record<string, string>,
    request_data: parse(l.requestData),
    response_headers: parse(l.responseHeaders) as Record<string, string>,
    response_body: l.responseBody,
    execution_duration: l.executionDuration,
    response_status: l.responseStatus,
    created_at: iso(l.createdAt),
  };
}
