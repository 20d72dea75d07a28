/**
 * POST /groups/:id/transfer (GitLab lib/api/groups.rb `:id/transfer`, Groups::TransferService): a
 * group moves under another group, or becomes a top-level group without `group_id`. Its subtree's
 * full paths and traversal paths are rewritten and anything more visible than the new parent is
 * lowered to it, all in one batch.
 */
import { refreshShareGrants } from './share-grants';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { writeThenRead } from '../db/batch-reads';
import { members, namespaces, projects } from '../db/schema';
import { ApiError, forbidden, notFound } from '../platform/errors';
import { requireUser } from '../platform/guards';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { g, params } from '../platform/validate';
import { ACCESS, groupLevelSql, subtreeOf, VISIBILITY_LEVEL } from './abilities';
import { GroupDetailSchema } from './group-entity';
import { namespaceFullNameSql } from './group-queries';
import { findReadableGroupWith } from './groups';
import { detailProjectReads, presentDetail } from './groups-routes';

const transferParams = params({ id: g.string(), group_id: g.int().optional() });

/** `render_api_error!(service.error, 400)` with TransferService's "Transfer failed: …". */
const failed = (message: string) => new ApiError(400, { message: `Transfer failed: ${message}` });

export function mountGroupTransfer(r: Router) {
  r.route(
    { method: 'POST', path: '/groups/:id/transfer', summary: 'Transfer a group to another parent, or make it top-level', tags: ['groups'], params: transferParams, responses: { 201: GroupDetailSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      const parentId = p.group_id;
      // The group, the new parent with the caller's level in it, and a namespace or project already at
      // the group's path there: one round trip.
      const found = await findReadableGroupWith(c, caller, String(p.id), (groupId) => {
        const ownPath = sql`(SELECT g.path FROM namespaces g WHERE g.id = ${groupId})`;
        return [
          db.select({ ns: namespaces, level: groupLevelSql(user.id).as('level') }).from(namespaces).where(and(eq(namespaces.id, parentId ?? 0), eq(namespaces.kind, 'Group'))).limit(1),
          db
            .select({ id: namespaces.id })
            .from(namespaces)
            .where(and(parentId === undefined ? sql`${namespaces.parentId} IS NULL` : eq(namespaces.parentId, parentId), sql`lower(${namespaces.path}) = lower(${ownPath})`, sql`${namespaces.id} != ${groupId}`))
            .limit(1),
          db.select({ id: projects.id }).from(projects).where(and(eq(projects.namespaceId, parentId ?? 0), sql`lower(${projects.path}) = lower(${ownPath})`)).limit(1),
        ] as const;
      });
      const { group, level } = found;
      const [parents, sameNs, sameProject] = found.reads;
      // authorize! :admin_group (Owner).
      if (!caller.isAdmin && level < ACCESS.OWNER) throw forbidden();
      const parentRow = parents?.[0];
      // find_group!(params[:group_id]): a parent the caller cannot see is a missing one.
      if (parentId !== undefined && (!parentRow || (!caller.isAdmin && Number(parentRow.level) === 0 && parentRow.ns.visibility === 'private'))) throw notFound('Group');
      const parent = parentRow?.ns ?? null;
      const parentLevel = Number(parentRow?.level ?? 0);

      // ensure_allowed_transfer, in GitLab's order.
      if (!parent && group.parentId == null) throw failed('Group is already a root group.');
      if (parent && group.parentId === parent.id) throw failed('Group is already associated to the parent group.');
      const mayCreateThere = parent ? parentLevel >= (parent.subgroupCreationLevel === 'owner' ? ACCESS.OWNER : ACCESS.MAINTAINER) : user.canCreateGroup;
      if (!caller.isAdmin && !mayCreateThere) throw failed("You don't have enough permissions.");
      if (sameNs[0] || sameProject?.[0]) throw failed('The parent group already has a subgroup or a project with the same path.');
      const oldTraversal = group.traversalPath!;
      if (parent && parent.traversalPath!.startsWith(oldTraversal)) throw failed('Cannot transfer group to one of its subgroup.');

      const now = Date.now();
      const newFull = parent ? `${parent.fullPath}/${group.path}` : group.path;
      const newTraversal = `${parent?.traversalPath ?? '/'}${group.id}/`;
      const subtree = subtreeOf(oldTraversal);
      const treeIds = db.select({ id: namespaces.id }).from(namespaces).where(subtree);
      const statements: BatchItem<'sqlite'>[] = [
        // Paths first: both rewrites find the subtree by its old traversal path.
        db.update(namespaces).set({ fullPath: sql`${newFull} || substr(${namespaces.fullPath}, ${group.fullPath.length + 1})` }).where(subtree),
      ];
      if (parent) {
        // update_visibility_levels: the group, its descendants and their projects no more visible than the new parent.
        const cap = VISIBILITY_LEVEL[parent.visibility];
        const above = Object.entries(VISIBILITY_LEVEL).filter(([, v]) => v > cap).map(([k]) => k);
        if (above.length) {
          statements.push(db.update(projects).set({ visibility: parent.visibility }).where(and(inArray(projects.namespaceId, treeIds), inArray(projects.visibility, above))));
          statements.push(db.update(namespaces).set({ visibility: parent.visibility }).where(and(subtree, inArray(namespaces.visibility, above))));
        }
      }
      statements.push(db.update(namespaces).set({ traversalPath: sql`${newTraversal} || substr(${namespaces.traversalPath}, ${oldTraversal.length + 1})` }).where(subtree));
      statements.push(db.update(namespaces).set({ parentId: parent?.id ?? null, updatedAt: now }).where(eq(namespaces.id, group.id)));
      if (!parent && !caller.isAdmin) {
        // A group made top-level keeps its mover as an Owner (they may have owned it only through the old parent).
        statements.push(
          db
            .insert(members)
            .values({ sourceType: 'Namespace', sourceId: group.id, userId: user.id, accessLevel: ACCESS.OWNER, createdById: user.id, createdAt: now, updatedAt: now })
            .onConflictDoUpdate({ target: [members.userId, members.sourceType, members.sourceId], set: { accessLevel: ACCESS.OWNER, updatedAt: now } }),
        );
      }
      // Members of the new ancestors are now inherited members of the moved groups, so the shares
      // those groups were invited to give access to others (run after the traversal paths moved).
      statements.push(...refreshShareGrants(db, { invitedSubtree: newTraversal }));
      let done;
      try {
        // The moves and the group read back for the answer: one round trip.
        done = await writeThenRead(db, statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]], [
          db.select({ group: namespaces, fullName: namespaceFullNameSql() }).from(namespaces).where(eq(namespaces.id, group.id)).limit(1),
          ...detailProjectReads(db, caller, sql`${group.id}`),
        ] as const);
      } catch (err) {
        // A namespace took the new full path meanwhile.
        if (isUniqueViolation(err)) throw failed('The parent group already has a subgroup or a project with the same path.');
        throw err;
      }
      const [rows, ...reads] = done;
      return c.json(await presentDetail(c, caller, rows[0], reads), 201);
    },
  );
}
