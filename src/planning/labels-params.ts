/**
 * Labels API parameters (GitLab lib/api/labels.rb, group_labels.rb, helpers/label_helpers.rb,
 * subscriptions.rb).
 */
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';

const id = g.string();

export const listProjectLabelsParams = params({
  id,
  with_counts: g.bool().default(false),
  include_ancestor_groups: g.bool().default(true),
  search: g.search().optional(),
  /** Added in GitLab 18.10: filter by archived status. */
  archived: g.bool().optional(),
  ...paginationParams,
});

export const getProjectLabelParams = params({ id, name: g.string(), include_ancestor_groups: g.bool().default(true) });

export const listGroupLabelsParams = params({
  id,
  with_counts: g.bool().default(false),
  include_ancestor_groups: g.bool().default(true),
  include_descendant_groups: g.bool().default(false),
  only_group_labels: g.bool().default(true),
  search: g.search().optional(),
  ...paginationParams,
});

export const getGroupLabelParams = params({
  id,
  name: g.string(),
  include_ancestor_groups: g.bool().default(true),
  include_descendant_groups: g.bool().default(false),
  only_group_labels: g.bool().default(true),
});

/** `label_create_params`; projects also take `priority` (allow_blank: an empty value means none). */
const createShape = {
  id,
  name: g.string(),
  color: g.string(),
  description: g.string().optional(),
  archived: g.bool().optional(),
};
export const createProjectLabelParams = params({ ...createShape, priority: g.int().optional() });
export const createGroupLabelParams = params(createShape);

const updateShape = {
  id,
  new_name: g.string().optional(),
  color: g.string().optional(),
  description: g.string().optional(),
  archived: g.bool().optional(),
};
/**
 * `project_label_update_params`. `at_least_one_of` is checked in the handler: Grape counts a key
 * sent as null (`"priority": null` removes the priority), which the shared rule checker does not.
 */
export const updateProjectLabelParams = params({ ...updateShape, name: g.string(), priority: g.int().optional() });
export const updateProjectLabelLegacyParams = params(
  { ...updateShape, label_id: g.int().optional(), name: g.string().optional(), priority: g.int().optional() },
  [{ exactlyOneOf: ['label_id', 'name'] }],
);
export const updateGroupLabelParams = params({ ...updateShape, name: g.string() }, [{ atLeastOneOf: ['new_name', 'color', 'description', 'archived'] }]);
export const updateGroupLabelLegacyParams = params({ ...updateShape, label_id: g.int().optional(), name: g.string().optional() }, [
  { exactlyOneOf: ['label_id', 'name'] },
  { atLeastOneOf: ['new_name', 'color', 'description', 'archived'] },
]);

export const deleteLabelParams = params({ id, name: g.string() });
export const deleteProjectLabelLegacyParams = params({ id, label_id: g.int().optional(), name: g.string().optional() }, [{ exactlyOneOf: ['label_id', 'name'] }]);

export const promoteLabelParams = params({ id, name: g.string() });

export const subscribeLabelParams = params({ id, subscribable_id: g.string() });
