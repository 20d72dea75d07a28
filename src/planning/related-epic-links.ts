/**
 * Linked epics (Ultimate; GitLab ee/lib/api/related_epic_links.rb, Epics::RelatedEpicLinks::*,
 * IssuableLinks::CreateService, EpicPolicy): who may read and link epics, the reads of an epic's
 * links and of a group's (each hung off one lookup, one round trip), the link's validations, and
 * the statements that remove links with their epics.
 */
import { and, count, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { epics, namespaces, relatedEpicLinks } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { type IdSelect, within } from '../platform/cascade';
import { ACCESS, groupLevelSql, groupVisibleSql, memberBelowSql } from '../projects/abilities';
import { findGroupWhere, groupIdRef } from '../projects/group-queries';
import { systemNoteInsertWhen, toSentence } from '../issuables/system-notes';
import { canReadConfidentialEpic, type EpicExtras, type EpicRow, epicExtrasReads, presentEpics } from './epics';
import type { Epic } from './epic-entity';

/** IssuableLink::MAX_LINKS_COUNT: links per epic, both directions. */
export const MAX_LINKS = 100;

/**
 * EpicPolicy `admin_epic_relation` (with the plan checked, `admin_epic_link_relation`): at least
 * Guest in the epic's group (or an administrator), and `read_epic`, which a member has unless the
 * epic is confidential and they may not read confidential epics.
 */
export const canAdminEpicRelation = (caller: Caller, level: number, epic: Pick<EpicRow, 'confidential' | 'authorId'>) =>
  caller.isAdmin || (level >= ACCESS.GUEST && (!epic.confidential || canReadConfidentialEpic(caller, level, epic)));

/**
 * SQL: the epic whose id is `epicId` is one the caller may read (`Epic.epics_readable_by_user`):
 * its group is readable (visibility, membership of it, an ancestor or something below it) and, when
 * confidential, the caller is its author or a Planner or more there. Undefined for administrators.
 */
export function epicReadableSql(caller: Caller, epicId: SQL): SQL | undefined {
  if (caller.isAdmin) return undefined;
  const uid = caller.user?.id;
  // The sub-select's `namespaces` is unaliased: the abilities' SQL names "namespaces" columns.
  const group = uid === undefined ? groupVisibleSql(caller)! : sql`(${groupVisibleSql(caller)} OR ${memberBelowSql(uid)})`;
  const confidential = uid === undefined ? sql`re.confidential = 0` : sql`(re.confidential = 0 OR re.author_id = ${uid} OR ${groupLevelSql(uid)} >= ${ACCESS.PLANNER})`;
  return sql`EXISTS (SELECT 1 FROM epics re JOIN namespaces ON namespaces.id = re.group_id WHERE re.id = ${epicId} AND ${group} AND ${confidential})`;
}

const EPIC_ID = sql.raw('"epics"."id"');
/**
 * A link's columns under names of their own, for a select joined with `epics`: D1 returns a batch's
 * rows by column name, so two `id`s (or `created_at`s) in one row would collapse into one.
 */
const LINK_FIELDS = {
  id: sql<number>`"related_epic_links"."id"`.as('link_id'),
  sourceId: sql<number>`"related_epic_links"."source_id"`.as('link_source_id'),
  targetId: sql<number>`"related_epic_links"."target_id"`.as('link_target_id'),
  linkType: sql<string>`"related_epic_links"."link_type"`.as('link_type_value'),
  createdAt: sql<number>`"related_epic_links"."created_at"`.as('link_created_at'),
  updatedAt: sql<number>`"related_epic_links"."updated_at"`.as('link_updated_at'),
};
const LINK_SOURCE = sql.raw('"related_epic_links"."source_id"');
const LINK_TARGET = sql.raw('"related_epic_links"."target_id"');
/** The epic of a group by iid, as a sub-select (`gid` is the group's id or its sub-select). */
export const epicIdByIid = (gid: SQL, iid: number) => sql`(SELECT fe.id FROM epics fe WHERE fe.group_id = ${gid} AND fe.iid = ${Number.isSafeInteger(iid) ? iid : -1})`;
export const epicByIid = (db: Db, gid: SQL, iid: number) => db.select().from(epics).where(sql`${epics.id} = ${epicIdByIid(gid, iid)}`).limit(1);

/**
 * `epic.related_epics(current_user)`: the epics linked to `epicId` either way, readable by the
 * caller, in link order, each with its link; and their entities' extras. Unexecuted, for one batch.
 */
export function relatedEpicsReads(db: Db, caller: Caller, epicId: SQL) {
  const other = sql`CASE WHEN ${LINK_SOURCE} = ${epicId} THEN ${LINK_TARGET} ELSE ${LINK_SOURCE} END`;
  const touching = sql`(${LINK_SOURCE} = ${epicId} OR ${LINK_TARGET} = ${epicId})`;
  const others = sql`(SELECT CASE WHEN l.source_id = ${epicId} THEN l.target_id ELSE l.source_id END FROM related_epic_links l WHERE l.source_id = ${epicId} OR l.target_id = ${epicId})`;
  return [
    db
      .select({ link: LINK_FIELDS, epic: epics })
      .from(relatedEpicLinks)
      .innerJoin(epics, sql`${EPIC_ID} = ${other}`)
      .where(and(touching, epicReadableSql(caller, EPIC_ID)))
      .orderBy(relatedEpicLinks.id),
    ...epicExtrasReads(db, caller, (col) => sql`${col} IN ${others}`, false),
  ] as const;
}

/**
 * GET /groups/:id/related_epic_links (RelatedLinksFinder): links with an end among the epics of the
 * group and its subgroups, both ends readable by the caller, filtered by their own timestamps.
 * GitLab drops unreadable links after paginating; here they never enter the page or its count.
 */
export function groupLinksWhere(caller: Caller, gid: SQL, f: { created_after?: number; created_before?: number; updated_after?: number; updated_before?: number }) {
  const inTree = (col: SQL) =>
    sql`${col} IN (SELECT te.id FROM epics te JOIN namespaces tn ON tn.id = te.group_id JOIN namespaces tg ON tg.id = ${gid} WHERE tn.traversal_path >= tg.traversal_path AND tn.traversal_path < tg.traversal_path || ':')`;
  return and(
    or(inTree(LINK_SOURCE), inTree(LINK_TARGET)),
    epicReadableSql(caller, LINK_SOURCE),
    epicReadableSql(caller, LINK_TARGET),
    f.created_after !== undefined ? sql`${relatedEpicLinks.createdAt} >= ${f.created_after}` : undefined,
    f.created_before !== undefined ? sql`${relatedEpicLinks.createdAt} <= ${f.created_before}` : undefined,
    f.updated_after !== undefined ? sql`${relatedEpicLinks.updatedAt} >= ${f.updated_after}` : undefined,
    f.updated_before !== undefined ? sql`${relatedEpicLinks.updatedAt} <= ${f.updated_before}` : undefined,
  );
}

/** The epics at both ends of the links `linkIds` selects (a sub-select of link ids), for a batch, and their extras. */
export function linkEndsReads(db: Db, caller: Caller, linkIds: SQL) {
  const ends = sql`(SELECT el.source_id FROM related_epic_links el WHERE el.id IN ${linkIds} UNION SELECT el.target_id FROM related_epic_links el WHERE el.id IN ${linkIds})`;
  const level = caller.user ? groupLevelSql(caller.user.id) : sql<number>`0`;
  return [
    // With the caller's level in each end's group (DELETE asks whether both ends may be unlinked).
    db.select({ epic: epics, level: level.as('level'), groupPath: namespaces.fullPath }).from(epics).innerJoin(namespaces, eq(namespaces.id, epics.groupId)).where(sql`${epics.id} IN ${ends}`),
    ...epicExtrasReads(db, caller, (col) => sql`${col} IN ${ends}`, false),
  ] as const;
}

/**
 * What POST needs besides the request's group, all by sub-select so they share its batch: the
 * source epic, the target group (with the caller's level and membership below it), the target
 * epic, a link already between the two either way, and how many links each has.
 */
export function createReads(db: Db, caller: Caller, gid: SQL, p: { epic_iid: number; target_group_id: string; target_epic_iid: number }) {
  const uid = caller.user!.id;
  const source = epicIdByIid(gid, p.epic_iid);
  const targetGroup = groupIdRef(p.target_group_id);
  const target = epicIdByIid(targetGroup, p.target_epic_iid);
  const linksOf = (id: SQL) => db.select({ n: count() }).from(relatedEpicLinks).where(or(sql`${relatedEpicLinks.sourceId} = ${id}`, sql`${relatedEpicLinks.targetId} = ${id}`));
  return [
    epicByIid(db, gid, p.epic_iid),
    db
      .select({ group: namespaces, level: groupLevelSql(uid).as('level'), below: memberBelowSql(uid).as('below') })
      .from(namespaces)
      .where(findGroupWhere(p.target_group_id))
      .limit(1),
    epicByIid(db, targetGroup, p.target_epic_iid),
    db
      .select({ id: relatedEpicLinks.id })
      .from(relatedEpicLinks)
      .where(
        or(
          and(sql`${relatedEpicLinks.sourceId} = ${source}`, sql`${relatedEpicLinks.targetId} = ${target}`),
          and(sql`${relatedEpicLinks.sourceId} = ${target}`, sql`${relatedEpicLinks.targetId} = ${source}`),
        ),
      )
      .limit(1),
    linksOf(source),
    linksOf(target),
  ] as const;
}


/**
 * IssuableLink's validations of a new link, as IssuableLinks::CreateService words them for the 422
 * (`%{ref} cannot be added: %{errors}`, `ref` the epic asked for). Undefined when valid. A link
 * already there either way never gets here: that is the 409.
 */
export function linkError(source: EpicRow, target: EpicRow, counts: { source: number; target: number }, ref: string): string | undefined {
  const errors: string[] = [];
  if (source.id === target.id) errors.push('cannot be related to itself');
  const tooMany = `This epic would exceed the maximum number of linked epics (${MAX_LINKS}).`;
  if (counts.source >= MAX_LINKS) errors.push(tooMany);
  if (counts.target >= MAX_LINKS) errors.push(tooMany);
  return errors.length ? `${ref} cannot be added: ${toSentence(errors)}` : undefined;
}

type End = Pick<EpicRow, 'id' | 'iid' | 'groupId'>;

/**
 * The system notes of linking or unlinking, on both epics, written only when `when` holds as the
 * batch reaches them (GitLab IssuableLinks::CreateService / DestroyService#create_notes, EE
 * block_issuable / blocked_by_issuable): "marked this epic as related to &2", "… as blocking &2" on
 * the source and "… as blocked by &1" on the target, "removed the relation with &2". A reference
 * is `&iid` within the noting epic's group, else with the other group's full path.
 */
export function linkNotes(db: Db, link: { linkType: string; source: End; target: End }, paths: Map<number, string>, unlink: boolean, authorId: number, at: number, when: SQL) {
  const ref = (e: End, from: End) => (e.groupId === from.groupId ? `&${e.iid}` : `${paths.get(e.groupId) ?? ''}&${e.iid}`);
  const { source, target } = link;
  const [onSource, onTarget] = unlink
    ? [`removed the relation with ${ref(target, source)}`, `removed the relation with ${ref(source, target)}`]
    : link.linkType === 'blocks'
      ? [`marked this epic as blocking ${ref(target, source)}`, `marked this epic as blocked by ${ref(source, target)}`]
      : [`marked this epic as related to ${ref(target, source)}`, `marked this epic as related to ${ref(source, target)}`];
  return [
    systemNoteInsertWhen(db, { noteableType: 'Epic', noteableId: source.id, projectId: null, authorId, body: onSource, at }, when),
    systemNoteInsertWhen(db, { noteableType: 'Epic', noteableId: target.id, projectId: null, authorId, body: onTarget, at }, when),
  ] as const;
}

/** Epic entities by id, for rows read with their extras in the same batch. */
export async function presentById(c: Context<AppEnv>, caller: Caller, rows: EpicRow[], extras: EpicExtras, contextGroupId: number): Promise<Map<number, Epic>> {
  const unique = [...new Map(rows.map((e) => [e.id, e])).values()];
  const presented = await presentEpics(c, caller, unique, { contextGroupId }, extras);
  return new Map(unique.map((e, i) => [e.id, presented[i]]));
}

/** The links of epics that are going (an epic deleted, its group, its author for good), for the deleting batch. */
export const relatedEpicLinksDelete = (db: Db, epicIds: IdSelect | ReturnType<Db['select']>) =>
  db.delete(relatedEpicLinks).where(or(within(relatedEpicLinks.sourceId, epicIds), within(relatedEpicLinks.targetId, epicIds)));
