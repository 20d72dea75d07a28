/**
 * PUT /projects/:id/transfer (GitLab lib/api/projects.rb `:id/transfer`, Projects::TransferService):
 * moves a project to another namespace the caller may create projects in. Paths are computed from
 * the namespace on every read, so the move is one update (plus, into a personal namespace, its
 * owner's Owner membership), with the group labels and milestones the project's issues and merge
 * requests use that the new namespace does not offer (project-transfer-planning.ts), in one batch.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import { members, namespaces, projects } from '../db/schema';
import { writeThenRead } from '../db/batch-reads';
import type { Caller } from '../platform/context';
import { ApiError, forbidden, notFound } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { decimalId } from '../platform/record-id';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { settingsOf } from '../settings/settings';
import { ACCESS, groupLevelSql, type NamespaceRow, traversalIds, VISIBILITY_LEVEL } from './abilities';
import { projectCreationAccess, projectCreationLevelName } from './project-creation-level';
import { ProjectSchema } from './project-entity';
import { presentReadBack, projectReadBack } from './project-writes';
import { transferPlanningStatements } from './project-transfer-planning';
import { findReadableProjectWith } from './projects';

const transferParams = params({ id: g.string(), namespace: g.string() });

/** `render_api_error!("Failed to transfer project #{user_project.errors.messages}", 400)`: Ruby's Hash#inspect of the errors. */
const transferError = (message: string) => new ApiError(400, { message: `Failed to transfer project {:new_namespace=>[${JSON.stringify(message)}]}` });

export function mountProjectTransfer(r: Router) {
  r.route(
    { method: 'PUT', path: '/projects/:id/transfer', summary: 'Transfer a project to another namespace', tags: ['projects'], params: transferParams, responses: { 200: ProjectSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      const id = decimalId(p.namespace);
      const target: SQL = id !== undefined ? eq(namespaces.id, id) : sql`lower(${namespaces.fullPath}) = lower(${p.namespace})`;
      // The project, the target namespace with the caller's level in it, and a sibling of the same
      // name or path there: one round trip.
      const pr = await findReadableProjectWith(c, caller, p.id, (pid) => [
        db.select({ ns: namespaces, level: groupLevelSql(user.id).as('level') }).from(namespaces).where(target).limit(1),
        db
          .select({ id: projects.id })
          .from(projects)
          .where(
            sql`${projects.namespaceId} = (SELECT n.id FROM namespaces n WHERE ${id !== undefined ? sql`n.id = ${id}` : sql`lower(n.full_path) = lower(${p.namespace})`})
              AND (lower(${projects.path}) = (SELECT lower(s.path) FROM projects s WHERE s.id = ${pid}) OR lower(${projects.name}) = (SELECT lower(s.name) FROM projects s WHERE s.id = ${pid}))`,
          )
          .limit(1),
      ] as const);
      // ProjectPolicy :change_namespace: the project's owners (personal owner, Owner role) and administrators.
      if (!caller.isAdmin && pr.level < ACCESS.OWNER) throw forbidden();
      const [[found], [sibling]] = pr.reads;
      // find_namespace!: read_namespace_via_membership.
      const ns = found?.ns;
      if (!ns || !readableViaMembership(caller, ns, Number(found.level ?? 0))) throw notFound('Namespace');
      if (ns.id === pr.project.namespaceId) throw transferError('Project is already in this namespace.');
      if (!caller.isAdmin && !mayTransferInto(caller, ns, Number(found.level ?? 0), await settingsOf(c))) throw transferError("You don't have permission to transfer projects into that namespace.");
      if (sibling) throw transferError('Project with same name or path in target namespace already exists');

      // update_namespace_and_visibility: a project more visible than its new group takes the group's level.
      const visibility = ns.kind === 'Group' && VISIBILITY_LEVEL[pr.project.visibility] > VISIBILITY_LEVEL[ns.visibility] ? ns.visibility : pr.project.visibility;
      const now = Date.now();
      const writes = [db.update(projects).set({ namespaceId: ns.id, visibility, updatedAt: now, lastActivityAt: now }).where(eq(projects.id, pr.project.id))];
      // ensure_personal_project_owner_membership: moved into a personal namespace, its owner is the
      // project's Owner member; the members it had (a former personal owner's row included) stay.
      const owner =
        ns.kind === 'User' && ns.ownerId != null
          ? [
              db
                .insert(members)
                .values({ sourceType: 'Project', sourceId: pr.project.id, userId: ns.ownerId, accessLevel: ACCESS.OWNER, createdById: user.id, createdAt: now, updatedAt: now })
                .onConflictDoUpdate({ target: [members.userId, members.sourceType, members.sourceId], set: { accessLevel: ACCESS.OWNER, updatedAt: now } }),
            ]
          : [];
      // transfer_missing_group_resources(old_group): labels, then milestones.
      const groupIds = (n: NamespaceRow) => (n.kind === 'Group' ? traversalIds(n) : []);
      const planning = transferPlanningStatements(db, { projectId: pr.project.id, oldGroupIds: groupIds(pr.namespace), newGroupIds: groupIds(ns), now });
      const done = await writeThenRead(db, [...writes, ...owner, ...planning], projectReadBack(db, caller, eq(projects.id, pr.project.id)));
      return c.json(presentReadBack(c, caller, done));
    },
  );
}

function readableViaMembership(caller: Caller, ns: NamespaceRow, level: number): boolean {
  if (caller.isAdmin) return true;
  return ns.kind === 'User' ? ns.ownerId === caller.user!.id : level > 0;
}

/** GroupPolicy :transfer_projects: Maintainer or more, and project creation allowed at that level; one's own personal namespace. */
function mayTransferInto(caller: Caller, ns: NamespaceRow, level: number, settings: Record<string, unknown>): boolean {
  if (ns.kind === 'User') return ns.ownerId === caller.user!.id;
  return level >= ACCESS.MAINTAINER && level >= projectCreationAccess(projectCreationLevelName(ns.projectCreationLevel, settings));
}
