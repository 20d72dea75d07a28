/**
 * Project and group labels (GitLab lib/api/labels.rb, group_labels.rb, helpers/label_helpers.rb)
 * and label subscriptions (lib/api/subscriptions.rb). Every route runs `authenticate!`.
 *
 * Rights: reading needs a readable project or group; creating, updating, deleting and promoting
 * need `admin_label` (planner or above, i.e. level >= 15; administrators always). Scopes, lookup and
 * presenting are in label-lookup.ts, the writes in label-writes.ts.
 */
import { z } from 'zod';
import type { Router } from '../platform/router';
import {
  createGroupLabelParams,
  createProjectLabelParams,
  deleteLabelParams,
  deleteProjectLabelLegacyParams,
  getGroupLabelParams,
  getProjectLabelParams,
  listGroupLabelsParams,
  listProjectLabelsParams,
  promoteLabelParams,
  subscribeLabelParams,
  updateGroupLabelLegacyParams,
  updateGroupLabelParams,
  updateProjectLabelLegacyParams,
  updateProjectLabelParams,
} from './labels-params';
import { LabelSchema, ProjectLabelSchema } from './label-entity';
import { findLabel, type GroupParent, groupLabelsSql, list, loadParent, present, type ProjectParent, projectScope } from './label-lookup';
import { createLabel, deleteLabel, promoteLabel, requireSomeProjectUpdate, toggleSubscription, updateLabel } from './label-writes';

const TAGS = ['labels'];

export function mountLabels(r: Router) {
  const auth = { signedIn: true as const };

  // ---- project labels (lib/api/labels.rb)
  r.route({ ...auth, method: 'GET', path: '/projects/:id/labels', summary: 'List project labels', tags: TAGS, params: listProjectLabelsParams, responses: { 200: z.array(ProjectLabelSchema) } }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    const scope = projectScope(parent, p.include_ancestor_groups);
    return list(c, caller, parent, scope, p, { with_counts: false, include_ancestor_groups: true });
  });

  r.route({ ...auth, method: 'POST', path: '/projects/:id/labels', summary: 'Create a project label', tags: TAGS, params: createProjectLabelParams, responses: { 201: ProjectLabelSchema } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'project', p.id);
    return createLabel(c, caller, parent, p);
  });

  // Deprecated body-addressed forms (12.4), registered before `/:name` routes.
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels', summary: 'Update a project label (deprecated)', tags: TAGS, params: updateProjectLabelLegacyParams, responses: { 200: ProjectLabelSchema } }, async ({ c, p, caller }) => {
    await requireSomeProjectUpdate(c);
    const parent = await loadParent(c, caller, 'project', p.id);
    return updateLabel(c, caller, parent, String(p.label_id ?? p.name), p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/projects/:id/labels', summary: 'Delete a project label (deprecated)', tags: TAGS, params: deleteProjectLabelLegacyParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'project', p.id);
    return deleteLabel(c, caller, parent, String(p.label_id ?? p.name));
  });
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels/promote', summary: 'Promote a project label (deprecated)', tags: TAGS, params: promoteLabelParams, responses: { 200: LabelSchema } }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    return promoteLabel(c, caller, parent, p.name);
  });

  r.route({ ...auth, method: 'GET', path: '/projects/:id/labels/:name', summary: 'Get a project label', tags: TAGS, params: getProjectLabelParams, responses: { 200: ProjectLabelSchema } }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    const label = await findLabel(c, projectScope(parent, p.include_ancestor_groups), p.name, { caller, parent });
    return c.json((await present(c, caller, parent, [label]))[0]);
  });
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels/:name', summary: 'Update a project label', tags: TAGS, params: updateProjectLabelParams, responses: { 200: ProjectLabelSchema } }, async ({ c, p, caller }) => {
    await requireSomeProjectUpdate(c);
    const parent = await loadParent(c, caller, 'project', p.id);
    return updateLabel(c, caller, parent, p.name, p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/projects/:id/labels/:name', summary: 'Delete a project label', tags: TAGS, params: deleteLabelParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'project', p.id);
    return deleteLabel(c, caller, parent, p.name);
  });
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels/:name/promote', summary: 'Promote a project label to a group label', tags: TAGS, params: promoteLabelParams, responses: { 200: LabelSchema } }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    return promoteLabel(c, caller, parent, p.name);
  });
  r.route(
    { ...auth, method: 'POST', path: '/projects/:id/labels/:subscribable_id/subscribe', summary: 'Subscribe to a project label', tags: TAGS, params: subscribeLabelParams, responses: { 201: ProjectLabelSchema, 304: null } },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'project', p.id), p.subscribable_id, true),
  );
  r.route(
    { ...auth, method: 'POST', path: '/projects/:id/labels/:subscribable_id/unsubscribe', summary: 'Unsubscribe from a project label', tags: TAGS, params: subscribeLabelParams, responses: { 201: ProjectLabelSchema, 304: null } },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'project', p.id), p.subscribable_id, false),
  );

  // ---- group labels (lib/api/group_labels.rb)
  r.route({ ...auth, method: 'GET', path: '/groups/:id/labels', summary: 'List group labels', tags: TAGS, params: listGroupLabelsParams, responses: { 200: z.array(LabelSchema) } }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'group', p.id)) as GroupParent;
    const scope = await groupLabelsSql(c, caller, parent.group, { ancestors: p.include_ancestor_groups, descendants: p.include_descendant_groups, onlyGroupLabels: p.only_group_labels });
    return list(c, caller, parent, scope, p, { with_counts: false, include_ancestor_groups: true, include_descendant_groups: false, only_group_labels: true });
  });
  r.route({ ...auth, method: 'POST', path: '/groups/:id/labels', summary: 'Create a group label', tags: TAGS, params: createGroupLabelParams, responses: { 201: LabelSchema } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return createLabel(c, caller, parent, p);
  });
  r.route({ ...auth, method: 'PUT', path: '/groups/:id/labels', summary: 'Update a group label (deprecated)', tags: TAGS, params: updateGroupLabelLegacyParams, responses: { 200: LabelSchema } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return updateLabel(c, caller, parent, String(p.label_id ?? p.name), p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/groups/:id/labels', summary: 'Delete a group label (deprecated)', tags: TAGS, params: deleteLabelParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return deleteLabel(c, caller, parent, p.name);
  });
  r.route({ ...auth, method: 'GET', path: '/groups/:id/labels/:name', summary: 'Get a group label', tags: TAGS, params: getGroupLabelParams, responses: { 200: LabelSchema } }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'group', p.id)) as GroupParent;
    const scope = await groupLabelsSql(c, caller, parent.group, { ancestors: p.include_ancestor_groups, descendants: p.include_descendant_groups, onlyGroupLabels: p.only_group_labels });
    const label = await findLabel(c, scope, p.name, { caller, parent });
    return c.json((await present(c, caller, parent, [label]))[0]);
  });
  r.route({ ...auth, method: 'PUT', path: '/groups/:id/labels/:name', summary: 'Update a group label', tags: TAGS, params: updateGroupLabelParams, responses: { 200: LabelSchema } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return updateLabel(c, caller, parent, p.name, p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/groups/:id/labels/:name', summary: 'Delete a group label', tags: TAGS, params: deleteLabelParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return deleteLabel(c, caller, parent, p.name);
  });
  r.route(
    { ...auth, method: 'POST', path: '/groups/:id/labels/:subscribable_id/subscribe', summary: 'Subscribe to a group label', tags: TAGS, params: subscribeLabelParams, responses: { 201: LabelSchema, 304: null } },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'group', p.id), p.subscribable_id, true),
  );
  r.route(
    { ...auth, method: 'POST', path: '/groups/:id/labels/:subscribable_id/unsubscribe', summary: 'Unsubscribe from a group label', tags: TAGS, params: subscribeLabelParams, responses: { 201: LabelSchema, 304: null } },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'group', p.id), p.subscribable_id, false),
  );
}
