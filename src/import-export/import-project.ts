/**
 * The first pass's writes: the project's own attributes from tree/project.json under
 * `override_params` (only what a project create accepts: never ids, creator, import fields), and
 * its members (members_mapper.rb): archive users matched by email to local users the importer may
 * see, never above the importer's own access; the map also gives every later row its author.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { members, namespaces, projects, users } from '../db/schema';
import { ACCESS, FEATURES, groupLevelSql, MEMBER_LEVELS, type NamespaceRow, VISIBILITY_LEVEL } from '../projects/abilities';
import { featureSet } from '../projects/project-writes';
import type { Settings } from '../settings/settings';

type Row = Record<string, unknown>;

export interface ArchiveMember {
  access_level?: unknown;
  user?: { id?: unknown; email?: unknown; public_email?: unknown; username?: unknown } | null;
}

/** The importer: administrator or not, and their access to the new project (personal owner, project or group member). */
export function importerLevelRead(db: Db, projectId: number, importerId: number) {
  return db
    .select({
      isAdmin: users.isAdmin,
      ownerId: namespaces.ownerId,
      kind: namespaces.kind,
      groupLevel: groupLevelSql(importerId).as('group_level'),
      memberLevel: sql<number | null>`(SELECT max(m.access_level) FROM members m WHERE m.source_type = 'Project' AND m.source_id = ${projectId} AND m.user_id = ${importerId})`.as('member_level'),
    })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .innerJoin(users, eq(users.id, importerId))
    .where(eq(projects.id, projectId))
    .limit(1);
}

const emailsOf = (list: ArchiveMember[]) =>
  [...new Set(list.flatMap((m) => [m.user?.email, m.user?.public_email]).filter((e): e is string => typeof e === 'string' && e.length <= 255 && e.includes('@')).map((e) => e.toLowerCase()))];

/** Active local users whose email or public email is one of the archive's. */
export function userMapReads(db: Db, _importerId: number, list: ArchiveMember[]) {
  const emails = JSON.stringify(emailsOf(list));
  return db
    .select({ id: users.id, email: users.email, publicEmail: users.publicEmail })
    .from(users)
    .where(and(eq(users.state, 'active'), sql`(lower(${users.email}) IN (SELECT value FROM json_each(${emails})) OR lower(${users.publicEmail}) IN (SELECT value FROM json_each(${emails})))`));
}

type LevelRow = Awaited<ReturnType<typeof importerLevelRead>>[number];
type Candidate = Awaited<ReturnType<typeof userMapReads>>[number];

/**
 * The archive user map and the member rows. An administrator's import matches users by their
 * email; anyone else's only by the email a user chose to make public, so an import cannot probe
 * private addresses. Members get at most the importer's own level, and Owner becomes Maintainer.
 */
export function memberStatements(db: Db, projectId: number, importerId: number, levelRows: LevelRow[], candidates: Candidate[], list: ArchiveMember[], now: number) {
  const me = levelRows[0];
  const isAdmin = !!me?.isAdmin;
  const importerLevel = !me ? 0 : me.kind === 'User' && me.ownerId === importerId ? ACCESS.OWNER : Math.max(Number(me.memberLevel ?? 0), Number(me.groupLevel ?? 0), isAdmin ? ACCESS.OWNER : 0);
  const byEmail = new Map<string, number>();
  for (const c of candidates) {
    if (c.publicEmail) byEmail.set(c.publicEmail.toLowerCase(), c.id);
    if (isAdmin) byEmail.set(c.email.toLowerCase(), c.id);
  }
  const map: Record<string, number> = {};
  const statements = [];
  const added = new Set<number>();
  for (const m of list) {
    const archiveId = m.user?.id;
    if (typeof archiveId !== 'number') continue;
    const email = [m.user?.public_email, m.user?.email].find((e): e is string => typeof e === 'string' && byEmail.has(e.toLowerCase()));
    const localId = email ? byEmail.get(email.toLowerCase())! : undefined;
    if (localId === undefined) continue;
    map[String(archiveId)] = localId;
    const level = Math.min(Number(m.access_level), importerLevel, ACCESS.MAINTAINER);
    if (localId === importerId || added.has(localId) || !(MEMBER_LEVELS as readonly number[]).includes(level)) continue;
    added.add(localId);
    statements.push(db.insert(members).values({ sourceType: 'Project', sourceId: projectId, userId: localId, accessLevel: level, createdById: importerId, createdAt: now, updatedAt: now }).onConflictDoNothing());
  }
  return { users: map, statements };
}

const LEVEL_NAMES: Record<number, string> = { 0: 'private', 10: 'internal', 20: 'public' };

/** ProjectFeature levels as exported (0 disabled, 10 private, 20 enabled, 30 public). */
const FEATURE_LEVELS: Record<number, string> = { 0: 'disabled', 10: 'private', 20: 'enabled', 30: 'public' };

/** project_feature.ndjson's `<feature>_access_level` values as this server stores them. */
function archiveFeatures(doc: Row | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of FEATURES) {
    const level = FEATURE_LEVELS[Number(doc?.[`${f}_access_level`])];
    // `public` exists only for pages; elsewhere it reads as enabled.
    if (level) out[f] = level === 'public' && f !== 'pages' ? 'enabled' : level;
  }
  return out;
}

/**
 * tree/project.json's description, visibility and only_allow_merge_if_all_discussions_are_resolved,
 * and project_feature's access levels, under
 * `override_params`; the visibility never above the namespace's.
 */
export function projectAttributeUpdate(db: Db, projectId: number, ns: NamespaceRow, tree: Row, override: Row, settings: Settings, featureDoc?: Row) {
  const description = typeof override.description === 'string' ? override.description : typeof tree.description === 'string' ? tree.description : null;
  let visibility: string | undefined = typeof override.visibility === 'string' && override.visibility in VISIBILITY_LEVEL ? override.visibility : LEVEL_NAMES[Number(tree.visibility_level)];
  if (visibility && ns.kind === 'Group' && VISIBILITY_LEVEL[visibility] > VISIBILITY_LEVEL[ns.visibility]) visibility = ns.visibility;
  const restricted = Array.isArray(settings.restricted_visibility_levels) ? settings.restricted_visibility_levels.map(String) : [];
  if (visibility && restricted.includes(visibility)) visibility = undefined;
  const set: Partial<typeof projects.$inferInsert> = {};
  if (description !== null) set.description = description.slice(0, 2000);
  if (visibility) set.visibility = visibility;
  const onlyResolved = [override.only_allow_merge_if_all_discussions_are_resolved, tree.only_allow_merge_if_all_discussions_are_resolved].find((v) => typeof v === 'boolean');
  if (onlyResolved !== undefined) set.onlyAllowMergeIfAllDiscussionsAreResolved = onlyResolved as boolean;
  const features = featureSet(override, archiveFeatures(featureDoc));
  if (Object.keys(features).length) set.features = JSON.stringify(features);
  if (!Object.keys(set).length) return null;
  return [db.update(projects).set(set).where(eq(projects.id, projectId))];
}
