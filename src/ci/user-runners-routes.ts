/**
 * POST /user/runners (GitLab 15.10+, lib/api/user_runners.rb and Ci::Runners::CreateRunnerService):
 * a signed-in user creates a runner of the instance (administrators), of a group (owners) or of a
 * project (maintainers) and gets its `glrt-` authentication token once. gitlab-runner then skips
 * registration and verifies that token (reference gitlab-behaviour-2.md 5.1), polling like any runner.
 *
 * Errors are the service's words: an unknown scope is 400 `Missing/invalid group|project`, a group
 * or project id the runner type does not take 400 `Unexpected scope`, a caller
 * without `create_runners` (`create_instance_runner`) 403 `Insufficient permissions`, and the model's
 * validation errors 400 with their full messages joined as a sentence (`errors.to_sentence`).
 */
import { and, eq } from 'drizzle-orm';
import { namespaces, projects } from '../db/schema';
import { badRequest, forbidden, grapeError } from '../platform/errors';
import { requireUser } from '../platform/guards';
import type { Router } from '../platform/router';
import { iso } from '../platform/time';
import { g, params } from '../platform/validate';
import { ACCESS, groupLevelSql, projectLevelSql } from '../projects/abilities';
import { settingsOf } from '../settings/settings';
import { RunnerRegistrationDetailsSchema } from './runner-api-routes';
import type { RunnerType } from './runner-tokens';
import { createRunner } from './runner-create';
import { runnerErrors } from './runner-validation';

const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;

/** ActiveModel's `full_messages` (attribute humanized, then the message) joined by Array#to_sentence. */
export function fullMessagesSentence(errors: Record<string, string[]>): string {
  const humanize = (attr: string) => attr.charAt(0).toUpperCase() + attr.slice(1).replace(/_/g, ' ');
  const all = Object.entries(errors).flatMap(([attr, msgs]) => msgs.map((m) => `${humanize(attr)} ${m}`));
  if (all.length <= 2) return all.join(' and ');
  return `${all.slice(0, -1).join(', ')}, and ${all[all.length - 1]}`;
}

const createParams = params(
  {
    runner_type: g.enum(RUNNER_TYPES),
    // `given runner_type: group_type|project_type { requires … }`: checked in the handler.
    group_id: g.int().optional(),
    project_id: g.int().optional(),
    description: g.string().optional(),
    maintenance_note: g.string().optional(),
    paused: g.bool().optional(),
    locked: g.bool().optional(),
    access_level: g.enum(['not_protected', 'ref_protected']).optional(),
    run_untagged: g.bool().optional(),
    tag_list: g.csv().optional(),
    maximum_timeout: g.int().optional(),
  },
);

export function mountUserRunners(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/user/runners',
      summary: 'Create a runner owned by the current user',
      tags: ['runners'],
      // `allow_access_with_scope :create_runner` (POST only), besides `api`.
      scopes: ['create_runner'],
      params: createParams,
      responses: { 201: RunnerRegistrationDetailsSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const type: RunnerType = p.runner_type;
      if (type === 'group_type' && p.group_id === undefined) throw grapeError('group_id is missing');
      if (type === 'project_type' && p.project_id === undefined) throw grapeError('project_id is missing');
      // A group or project the runner's type does not take: the service's `Unexpected scope`
      // (InstanceRunnerStrategy#validate_params), before any permission check. GitLab's REST path
      // hands such an id on to Ci::Runner.new, which fails with a 500; it is never ignored.
      if ((type !== 'group_type' && p.group_id !== undefined) || (type !== 'project_type' && p.project_id !== undefined)) throw badRequest('Unexpected scope');
      const db = c.var.db;
      // The scope and the caller's level in it in one read (Group.find_by_id / Project.find_by_id
      // see every group and project: one the caller cannot see is refused with 403, not 404).
      const scopeRead =
        type === 'group_type'
          ? db.select({ id: namespaces.id, level: groupLevelSql(user.id) }).from(namespaces).where(and(eq(namespaces.id, p.group_id!), eq(namespaces.kind, 'Group'))).limit(1)
          : type === 'project_type'
            ? db.select({ id: projects.id, level: projectLevelSql(user.id) }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, p.project_id!)).limit(1)
            : undefined;
      const [scopeRows, settings] = await Promise.all([scopeRead, settingsOf(c)]);
      const scope = scopeRows?.[0];
      if (type === 'group_type' && !scope) throw badRequest('Missing/invalid group');
      if (type === 'project_type' && !scope) throw badRequest('Missing/invalid project');
      // create_instance_runner: administrators; create_runners: group owners, project maintainers.
      const min = type === 'group_type' ? ACCESS.OWNER : ACCESS.MAINTAINER;
      if (!caller.isAdmin && (type === 'instance_type' || Number(scope!.level) < min)) throw forbidden('Insufficient permissions');

      const attrs = {
        description: p.description ?? '',
        maintenanceNote: p.maintenance_note ?? null,
        active: p.paused !== undefined ? !p.paused : true,
        locked: p.locked ?? false,
        runUntagged: p.run_untagged ?? true,
        tagList: [...new Set((p.tag_list ?? []).map((t) => t.trim()).filter(Boolean))],
        accessLevel: p.access_level ?? 'not_protected',
        maximumTimeout: p.maximum_timeout ?? null,
      };
      const errors = runnerErrors(attrs);
      if (Object.keys(errors).length) throw badRequest(fullMessagesSentence(errors));

      const created = await createRunner(c, settings, { type, ownerId: scope?.id ?? 0, registrationType: 'authenticated_user', columns: { ...attrs, createdById: user.id } });
      if (!created) throw forbidden();
      return c.json({ id: created.id, token: created.token, token_expires_at: iso(created.expiresAt) }, 201);
    },
  );
}
