/** Epics API parameters (GitLab ee/lib/api/epics.rb). */
import { paginationParams } from '../platform/pagination';
import { g, LONG_LIST_MAX, params } from '../platform/validate';

const dates = {
  start_date_is_fixed: g.bool().optional(),
  start_date_fixed: g.string().optional(),
  due_date_is_fixed: g.bool().optional(),
  due_date_fixed: g.string().optional(),
};

export const listEpicsParams = params(
  {
    id: g.string(),
    author_id: g.int().optional(),
    author_username: g.string().optional(),
    labels: g.csv({ max: LONG_LIST_MAX }).optional(),
    with_labels_details: g.bool().default(false),
    order_by: g.enum(['created_at', 'updated_at', 'title'] as const).default('created_at'),
    sort: g.enum(['asc', 'desc'] as const).default('desc'),
    search: g.search().optional(),
    state: g.enum(['opened', 'closed', 'all'] as const).default('all'),
    created_after: g.datetime().optional(),
    created_before: g.datetime().optional(),
    updated_after: g.datetime().optional(),
    updated_before: g.datetime().optional(),
    include_ancestor_groups: g.bool().default(false),
    include_descendant_groups: g.bool().default(true),
    confidential: g.bool().optional(),
    ...paginationParams,
  },
  [{ mutuallyExclusive: ['author_id', 'author_username'] }],
);

export const createEpicParams = params({
  id: g.string(),
  title: g.string(),
  labels: g.csv().optional(),
  description: g.string().optional(),
  color: g.string().optional(),
  confidential: g.bool().optional(),
  created_at: g.datetime().optional(),
  parent_id: g.int().optional(),
  ...dates,
});

export const updateEpicParams = params(
  {
    id: g.string(),
    epic_iid: g.int(),
    title: g.string().optional(),
    description: g.string().optional(),
    labels: g.csv().optional(),
    add_labels: g.csv().optional(),
    remove_labels: g.csv().optional(),
    updated_at: g.datetime().optional(),
    state_event: g.enum(['reopen', 'close'] as const).optional(),
    confidential: g.bool().optional(),
    parent_id: g.int().optional(),
    color: g.string().optional(),
    ...dates,
  },
  [
    {
      atLeastOneOf: [
        'add_labels', 'color', 'confidential', 'description', 'due_date_fixed', 'due_date_is_fixed', 'labels', 'parent_id', 'remove_labels',
        'start_date_fixed', 'start_date_is_fixed', 'state_event', 'title',
      ],
    },
  ],
);

export const epicRefParams = params({ id: g.string(), epic_iid: g.int() });
export const epicIssuesParams = params({ id: g.string(), epic_iid: g.int(), ...paginationParams });
