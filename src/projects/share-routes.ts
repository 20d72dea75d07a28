/**
 * Sharing projects and groups with groups (GitLab lib/api/projects.rb and groups.rb `:id/share`,
 * app/services/{projects,groups}/group_links/create_service.rb, models project_group_link.rb and
 * group_group_link.rb). The access a link gives is written with it (share-grants.ts) and read by abilities.ts.
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { groupGroupLinks, projectGroupLinks, protectedBranchAccessLevels, protectedEnvironmentEntries, protectedEnvironments } from '../db/schema';
import { writeThenRead } from '../db/batch-reads';
import { ApiError, conflict, forbidden, notFound } from '../platform/errors';
import { requireUser } from '../platform/guards';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { g, params } from '../platform/validate';
import { ACCESS, MEMBER_LEVELS, requireProjectLevel, traversalIds } from './abilities';
import { GroupDetailSchema } from './group-entity';
import { groupSharedWithRead, ProjectGroupLinkSchema, projectGroupLinkEntity } from './group-links';
import { findReadableGroup, presentDetail } from './groups-routes';
import { findReadableProject } from './projects';
import { dropGrantsOfLinks, refreshShareGrants } from './share-grants';

const shareParams = params({ id: g.string(), group_id: g.int(), group_access: g.intEnum(MEMBER_LEVELS), expires_at: g.date().optional() });
const unshareParams = params({ id: g.string(), group_id: g.int() });

/** GroupLinkable#execute: `error('Not Found', 404)` when the link may not be made, rendered by render_api_error!. */
const linkNotFound = () => new ApiError(404, { message: 'Not Found' });

/**
 * EE ProjectGroupLink#delete_related_access_levels (before the link goes), ProtectedEnvironment.revoke_group:
 * the project's protected branches lose their entries naming the group, its protected environments
 * the deploy entries naming it, and the approval
 * rules naming it where another rule remains (revoking never leaves an environment asking for no
 * approval). Only while the link exists, so a 404 changes nothing.
 */
function revokeGroupEntries(db: Db, projectId: number, groupId: number) {
  const linked = sql`EXISTS (SELECT 1 FROM ${projectGroupLinks} l WHERE l.project_id = ${projectId} AND l.group_id = ${groupId})`;
  const ofProject = sql`(SELECT pe.id FROM ${protectedEnvironments} pe WHERE pe.project_id = ${projectId})`;
  const e = protectedEnvironmentEntries;
  const b = protectedBranchAccessLevels;
  return [
    // Protected branches' push, merge and unprotect entries naming the group.
    db.delete(b).where(sql`${b.groupId} = ${groupId} AND ${b.protectedBranchId} IN (SELECT pb.id FROM protected_branches pb WHERE pb.project_id = ${projectId}) AND ${linked}`),
    db.delete(e).where(sql`${e.kind} = 'deploy' AND ${e.groupId} = ${groupId} AND ${e.protectedEnvironmentId} IN ${ofProject} AND ${linked}`),
    db
      .delete(e)
      .where(
        sql`${e.kind} = 'approval' AND ${e.groupId} = ${groupId} AND ${e.protectedEnvironmentId} IN ${ofProject} AND ${linked}
          AND EXISTS (SELECT 1 FROM ${protectedEnvironmentEntries} o WHERE o.protected_environment_id = ${e.protectedEnvironmentId} AND o.kind = 'approval' AND (o.group_id IS NULL OR o.group_id <> ${groupId}))`,
      ),
  ] as const;
}

export function mountShare(r: Router) {
  r.route(
    { method: 'POST', path: '/projects/:id/share', summary: 'Share a project with a group', tags: ['projects'], params: shareParams, responses: { 201: ProjectGroupLinkSchema } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const { project, namespace, level } = await findReadableProject(c, caller, p.id);
      requireProjectLevel(caller, level, ACCESS.MAINTAINER);
      // Project#allowed_to_share_with_group?: the group's share_with_group_lock.
      if (namespace.kind === 'Group' && namespace.shareWithGroupLock) throw new ApiError(400, { message: 'The project sharing with group is disabled' });
      // CreateService#valid_to_create?: the caller must be able to read the group.
      const target = await findReadableGroup(c, caller, String(p.group_id)).catch((err) => {
        throw err instanceof ApiError && err.status === 404 ? linkNotFound() : err;
      });
      // Only an owner may give a group Owner access (cannot_assign_owner_responsibilities_to_member_in_project?).
      if (p.group_access === ACCESS.OWNER && !caller.isAdmin && level < ACCESS.OWNER) throw forbidden();
      // ProjectGroupLink#different_group.
      if (traversalIds(namespace).includes(target.group.id)) throw conflict('Project cannot be shared with the group it is in or one of its ancestors.');
      const now = Date.now();
      const db = c.var.db;
      const linkId = sql`SELECT l.id FROM project_group_links l WHERE l.project_id = ${project.id} AND l.group_id = ${target.group.id}`;
      try {
        // The link and the access it gives in one batch.
        const [[link]] = await writeThenRead(
          db,
          [
            db.insert(projectGroupLinks).values({ projectId: project.id, groupId: target.group.id, groupAccess: p.group_access, expiresAt: p.expires_at ?? null, createdAt: now, updatedAt: now }),
            ...refreshShareGrants(db, { link: { kind: 'project', id: linkId } }),
          ],
          [db.select().from(projectGroupLinks).where(and(eq(projectGroupLinks.projectId, project.id), eq(projectGroupLinks.groupId, target.group.id))).limit(1)],
        );
        return c.json(projectGroupLinkEntity(link), 201);
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('Group already shared with this group');
        throw err;
      }
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/share/:group_id', summary: 'Stop sharing a project with a group', tags: ['projects'], params: unshareParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const { project, level } = await findReadableProject(c, caller, p.id);
      requireProjectLevel(caller, level, ACCESS.MAINTAINER);
      const db = c.var.db;
      const linkId = sql`SELECT l.id FROM project_group_links l WHERE l.project_id = ${project.id} AND l.group_id = ${p.group_id}`;
      // The access the link gave ends with it, in one batch.
      const [, , , , gone] = await db.batch([
        dropGrantsOfLinks(db, 'project', linkId),
        ...revokeGroupEntries(db, project.id, p.group_id),
        db.delete(projectGroupLinks).where(and(eq(projectGroupLinks.projectId, project.id), eq(projectGroupLinks.groupId, p.group_id))).returning({ id: projectGroupLinks.id }),
      ]);
      if (!gone.length) throw notFound('Group Link');
      return c.body(null, 204);
    },
  );

  r.route(
    { method: 'POST', path: '/groups/:id/share', summary: 'Share a group with a group', tags: ['groups'], params: shareParams, responses: { 201: GroupDetailSchema } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const shared = await findReadableGroup(c, caller, p.id);
      // groups.rb: `find_group!(params[:group_id])`.
      const target = await findReadableGroup(c, caller, String(p.group_id));
      // Groups::GroupLinks::CreateService#valid_to_create?: admin_group_member (owner) on the shared group.
      if (!caller.isAdmin && shared.level < ACCESS.OWNER) throw linkNotFound();
      const now = Date.now();
      const db = c.var.db;
      try {
        const [sharedWith] = await writeThenRead(
          db,
          [
            db.insert(groupGroupLinks).values({
              sharedGroupId: shared.group.id,
              sharedWithGroupId: target.group.id,
              groupAccess: p.group_access,
              expiresAt: p.expires_at ?? null,
              createdAt: now,
              updatedAt: now,
            }),
            ...refreshShareGrants(db, { link: { kind: 'group', id: sql`SELECT l.id FROM group_group_links l WHERE l.shared_group_id = ${shared.group.id} AND l.shared_with_group_id = ${target.group.id}` } }),
          ],
          [groupSharedWithRead(db, (column) => eq(column, shared.group.id))],
        );
        return c.json(await presentDetail(c, caller, shared, null, sharedWith), 201);
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('Shared group The group has already been shared with this group');
        throw err;
      }
    },
  );

  r.route(
    { method: 'DELETE', path: '/groups/:id/share/:group_id', summary: 'Stop sharing a group with a group', tags: ['groups'], params: unshareParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const { group, level } = await findReadableGroup(c, caller, p.id);
      if (!caller.isAdmin && level < ACCESS.OWNER) throw forbidden();
      const db = c.var.db;
      const linkId = sql`SELECT l.id FROM group_group_links l WHERE l.shared_group_id = ${group.id} AND l.shared_with_group_id = ${p.group_id}`;
      const [, gone] = await db.batch([
        dropGrantsOfLinks(db, 'group', linkId),
        db.delete(groupGroupLinks).where(and(eq(groupGroupLinks.sharedGroupId, group.id), eq(groupGroupLinks.sharedWithGroupId, p.group_id))).returning({ id: groupGroupLinks.id }),
      ]);
      // groups.rb: `not_found!(link)` with no link.
      if (!gone.length) throw notFound();
      return c.body(null, 204);
    },
  );
}
