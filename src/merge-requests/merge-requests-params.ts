/**
 * Parameters of the merge request endpoints (GitLab lib/api/merge_requests.rb and
 * lib/api/helpers/merge_requests_helpers.rb: merge_requests_base_params, optional_params,
 * update/merge params, with EE's approvals_before_merge).
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import { g, LONG_LIST_MAX, params, type Rule } from '../platform/validate';
import { intOr, usernames } from '../issues/issue-lists-params';
import { ASSIGNEE_IDS_PARAM } from '../issuables/issuable-fields';

const mrRef = { id: g.string(), merge_request_iid: g.int() };
export const mergeRequestRefParams = params(mrRef);
export const mergeRequestPageParams = params({ ...mrRef, ...paginationParams });

export const getMergeRequestParams = params({
  ...mrRef,
  render_html: g.bool().optional(),
  include_diverged_commits_count: g.bool().optional(),
  include_rebase_in_progress: g.bool().optional(),
});

export const changesParams = params({ ...mrRef, access_raw_diffs: g.bool().optional(), unidiff: g.bool().default(false) });
export const diffsParams = params({ ...mrRef, unidiff: g.bool().default(false), ...paginationParams });

/** optional_params (create and update) plus EE optional_params_ee. */
const optionalShape = {
  assignee_id: g.int().optional(),
  assignee_ids: g.intCsv(ASSIGNEE_IDS_PARAM).optional(),
  reviewer_ids: g.intCsv(ASSIGNEE_IDS_PARAM).optional(),
  description: g.string().optional(),
  labels: g.csv().optional(),
  add_labels: g.csv().optional(),
  remove_labels: g.csv().optional(),
  milestone_id: g.int().optional(),
  remove_source_branch: g.bool().optional(),
  allow_collaboration: g.bool().optional(),
  allow_maintainer_to_push: g.bool().optional(),
  squash: g.bool().optional(),
  merge_after: g.string().optional(),
  approvals_before_merge: g.int().optional(),
};

export const createMergeRequestParams = params({
  id: g.string(),
  title: g.string(),
  source_branch: g.string(),
  target_branch: g.string(),
  target_project_id: g.int().optional(),
  ...optionalShape,
});

/** `allow_blank: false`: Grape's `<param> is empty`. */
const nonBlank = () => g.string().refine((s) => s.trim() !== '', { message: 'is empty' });

export const UPDATE_AT_LEAST_ONE = [
  'assignee_id',
  'assignee_ids',
  'reviewer_ids',
  'description',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'remove_source_branch',
  'allow_collaboration',
  'allow_maintainer_to_push',
  'squash',
  'target_branch',
  'title',
  'state_event',
  'discussion_locked',
  'merge_after',
];

export const updateMergeRequestParams = params(
  {
    ...mrRef,
    title: nonBlank().optional(),
    target_branch: nonBlank().optional(),
    state_event: g.enum(['close', 'reopen'] as const).optional(),
    discussion_locked: g.bool().optional(),
    ...optionalShape,
  },
  [{ atLeastOneOf: UPDATE_AT_LEAST_ONE }],
);

export const mergeParams = params({
  ...mrRef,
  merge_commit_message: g.string().optional(),
  squash_commit_message: g.string().optional(),
  should_remove_source_branch: g.bool().optional(),
  merge_when_pipeline_succeeds: g.bool().optional(),
  auto_merge: g.bool().optional(),
  sha: g.string().optional(),
  squash: g.bool().optional(),
});

// ---------------------------------------------------------------------------------------------
// Lists

/** Helpers::MergeRequestsHelpers.sort_options. */
export const MR_ORDER_BY = ['created_at', 'label_priority', 'milestone_due', 'popularity', 'priority', 'title', 'updated_at', 'merged_at'] as const;
export const MR_SCOPES = ['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'reviews_for_me', 'all'] as const;
const NONE_ANY = ['none', 'any'];

/** merge_requests_negatable_params: also the keys of `not[...]`. */
const negatableShape = {
  author_id: g.int().optional(),
  author_username: g.string().optional(),
  assignee_id: intOr(NONE_ANY).optional(),
  assignee_username: usernames().optional(),
  reviewer_username: g.string().optional(),
  labels: g.csv({ max: LONG_LIST_MAX }).optional(),
  milestone: g.string().optional(),
  my_reaction_emoji: g.string().optional(),
};

const notShape = { ...negatableShape, reviewer_id: g.int().optional() };
export const MR_NOT_RULES: [string, string][] = [
  ['author_id', 'author_username'],
  ['assignee_id', 'assignee_username'],
  ['reviewer_id', 'reviewer_username'],
];

/** `optional :not, type: Hash do ... end`: errors named `not[key]`. */
const notHash = () =>
  z
    .unknown()
    .transform((v, ctx) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) {
        ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
        return z.NEVER;
      }
      const raw = { ...(v as Record<string, unknown>) };
      for (const [k, val] of Object.entries(raw)) if ((val === '' || val === null) && k !== 'milestone' && k !== 'author_username' && k !== 'reviewer_username') delete raw[k];
      const parsed = z.object(notShape).safeParse(raw);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.code === 'custom' ? issue.message : 'is invalid', path: issue.path, input: v });
        return z.NEVER;
      }
      return parsed.data;
    })
    .meta({ grapeType: 'Hash', jsonType: 'object' });

const listShape = {
  ...negatableShape,
  reviewer_id: intOr(NONE_ANY).optional(),
  state: g.enum(['opened', 'closed', 'locked', 'merged', 'all'] as const).default('all'),
  order_by: g.enum(MR_ORDER_BY).default('created_at'),
  sort: g.enum(['asc', 'desc'] as const).default('desc'),
  with_labels_details: g.bool().default(false),
  with_merge_status_recheck: g.bool().default(false),
  created_after: g.datetime().optional(),
  created_before: g.datetime().optional(),
  updated_after: g.datetime().optional(),
  updated_before: g.datetime().optional(),
  merged_after: g.datetime().optional(),
  merged_before: g.datetime().optional(),
  view: g.enum(['simple'] as const).optional(),
  scope: g.enum(MR_SCOPES).optional(),
  source_branch: g.string().optional(),
  source_project_id: g.int().optional(),
  target_branch: g.string().optional(),
  search: g.search().optional(),
  in: g.string().optional(),
  wip: g.enum(['yes', 'no'] as const).optional(),
  draft: g.bool().optional(),
  not: notHash().optional(),
  deployed_before: g.datetime().optional(),
  deployed_after: g.datetime().optional(),
  environment: g.string().optional(),
  merge_user_id: g.int().optional(),
  merge_user_username: g.string().optional(),
  ...paginationParams,
};

const listRules: Rule[] = [
  { mutuallyExclusive: ['author_id', 'author_username'] },
  { mutuallyExclusive: ['assignee_id', 'assignee_username'] },
  { mutuallyExclusive: ['reviewer_id', 'reviewer_username'] },
  { mutuallyExclusive: ['draft', 'wip'] },
  { mutuallyExclusive: ['merge_user_id', 'merge_user_username'] },
];

export const allMergeRequestsParams = params({ ...listShape, scope: g.enum(MR_SCOPES).default('created_by_me') }, listRules);
export const groupMergeRequestsParams = params({ id: g.string(), ...listShape, non_archived: g.bool().default(true) }, listRules);
export const projectMergeRequestsParams = params({ id: g.string(), ...listShape, iids: g.intCsv({ max: 1000 }).optional() }, listRules);

export type MergeRequestListParams = z.output<z.ZodObject<typeof listShape>> & { iids?: number[]; non_archived?: boolean };
export type MergeRequestNotParams = z.output<z.ZodObject<typeof notShape>>;

/** Declared defaults, repeated in Link URLs as Grape's `params` carries them. */
export const mrListDefaults = (kind: 'all' | 'group' | 'project'): Record<string, unknown> => ({
  state: 'all',
  order_by: 'created_at',
  sort: 'desc',
  with_labels_details: false,
  with_merge_status_recheck: false,
  ...(kind === 'all' ? { scope: 'created_by_me' } : {}),
  ...(kind === 'group' ? { non_archived: true } : {}),
});

export function mrNotRuleErrors(raw: unknown): string[] {
  if (!raw || typeof raw !== 'object') return [];
  const h = raw as Record<string, unknown>;
  return MR_NOT_RULES.filter(([a, b]) => h[a] != null && h[b] != null).map(([a, b]) => `not[${a}], not[${b}] are mutually exclusive`);
}
