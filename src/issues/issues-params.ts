/** Issue create/update parameters (GitLab lib/api/issues.rb `issue_params`, helpers/issues_helpers.rb). */
import { g, params } from '../platform/validate';
import { ASSIGNEE_IDS_PARAM } from '../issuables/issuable-fields';

export const ISSUE_TYPES = ['issue', 'incident', 'test_case', 'task'] as const;

/** `optional :labels, type: Array[String], coerce_with: CommaSeparatedToArray` and friends. */
const issueAttributes = {
  description: g.string().optional(),
  assignee_id: g.int().optional(),
  assignee_ids: g.intCsv(ASSIGNEE_IDS_PARAM).optional(),
  milestone_id: g.int().optional(),
  labels: g.csv().optional(),
  add_labels: g.csv().optional(),
  remove_labels: g.csv().optional(),
  due_date: g.string().optional(),
  confidential: g.bool().optional(),
  discussion_locked: g.bool().optional(),
  issue_type: g.enum(ISSUE_TYPES).optional(),
  weight: g.int().optional(),
  epic_id: g.int().optional(),
  epic_iid: g.int().optional(),
};

export const createIssueParams = params(
  {
    id: g.string(),
    title: g.string(),
    // issues.iid is a PostgreSQL integer: a bigger explicit iid would push every later iid of the project past 2^53.
    iid: g.int32().optional(),
    created_at: g.datetime().optional(),
    merge_request_to_resolve_discussions_of: g.int().optional(),
    discussion_to_resolve: g.string().optional(),
    ...issueAttributes,
  },
  [{ mutuallyExclusive: ['epic_id', 'epic_iid'] }],
);

export const updateIssueParams = params(
  {
    id: g.string(),
    issue_iid: g.int(),
    title: g.string().optional(),
    updated_at: g.datetime().optional(),
    state_event: g.enum(['reopen', 'close'] as const).optional(),
    ...issueAttributes,
  },
  [
    // issues.rb: `at_least_one_of(*Helpers::IssuesHelpers.update_params_at_least_one_of)`.
    { atLeastOneOf: [
      'assignee_id', 'assignee_ids', 'confidential', 'created_at', 'description', 'discussion_locked', 'due_date', 'labels', 'add_labels',
      'remove_labels', 'milestone_id', 'state_event', 'title', 'issue_type', 'weight', 'epic_id', 'epic_iid',
    ] },
    { mutuallyExclusive: ['epic_id', 'epic_iid'] },
  ],
);

export const issueRefParams = params({ id: g.string(), issue_iid: g.int() });
export const issueByIdParams = params({ id: g.string() });
