/**
 * GitLab's association `changes` (Issuable#hook_association_changes, #hook_reviewer_changes): the
 * labels, assignees and reviewers before and after an update, as hook hashes. They are written into
 * the event row by the write's own batch, not read when the dispatcher runs: `previous` from the ids
 * the request read before writing, `current` from the link rows as the batch leaves them (the event
 * statement comes after the link writes). A later write, rename or avatar change before the dispatch
 * does not change what the event says.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { DomainEvent } from '../platform/events';

const hookTimeSql = (col: string) => sql.raw(`strftime('%Y-%m-%d %H:%M:%S UTC', ${col} / 1000, 'unixepoch')`);

/** Label#hook_attrs of `labels l` (the SQL twin of labelHookAttrs in payload-parts.ts). */
const labelHash = sql`json_object('id', l.id, 'title', l.title, 'color', l.color, 'project_id', l.project_id, 'created_at', ${hookTimeSql('l.created_at')}, 'updated_at', ${hookTimeSql('l.updated_at')}, 'template', json('false'), 'description', l.description, 'type', CASE WHEN l.project_id IS NOT NULL THEN 'ProjectLabel' ELSE 'GroupLabel' END, 'group_id', l.group_id)`;

/** User#hook_attrs of `users u` (the SQL twin of userHookAttrs in payload-parts.ts). */
const userHash = (base: string) =>
  sql`json_object('id', u.id, 'name', u.name, 'username', u.username, 'avatar_url', CASE WHEN coalesce(u.avatar_path, '') <> '' THEN ${base} || '/uploads/-/system/user/avatar/' || u.id || '/avatar.png' END, 'email', '[REDACTED]')`;

/** A JSON array of the rows' hashes in the query's order (json() keeps each one JSON, not text). */
const array = (inner: SQL) => sql`(SELECT json_group_array(json(o)) FROM (${inner}))`;

/** Labels ordered by title, as the payload's own `labels`. */
const labelsOfIds = (ids: number[]) => array(sql`SELECT ${labelHash} AS o FROM labels l WHERE l.id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) ORDER BY l.title, l.id`);
const labelsOfTarget = (type: string, oid: SQL) =>
  array(sql`SELECT ${labelHash} AS o FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = ${type} AND ll.target_id = ${oid} ORDER BY l.title, l.id`);
/** Users in the order given (positions as read). */
const usersOfIds = (ids: number[], base: string) => array(sql`SELECT ${userHash(base)} AS o FROM json_each(${JSON.stringify(ids)}) j JOIN users u ON u.id = j.value ORDER BY j.key`);
const usersOfLinks = (table: string, column: string, oid: SQL, base: string) =>
  array(sql`SELECT ${userHash(base)} AS o FROM ${sql.raw(table)} a JOIN users u ON u.id = a.user_id WHERE a.${sql.raw(column)} = ${oid} ORDER BY a.position, a.user_id`);

/**
 * The event row's `data`: the recorded JSON, with `changes.labels` / `assignees` / `reviewers` set
 * (each `{ previous, current }`) for the associations the write says it replaced.
 */
export function eventDataSql(ev: DomainEvent, data: Record<string, unknown>, base: string, oid: SQL): SQL {
  const before = ev.before;
  if (!before || ev.objectId == null) return sql`${JSON.stringify(data)}`;
  // json_set makes the last key of a path, not the object above it.
  const literal = JSON.stringify({ ...data, changes: data.changes ?? {} });
  const type = ev.kind === 'issue' ? 'Issue' : 'MergeRequest';
  const links = ev.kind === 'issue' ? { table: 'issue_assignees', column: 'issue_id' } : { table: 'merge_request_assignees', column: 'merge_request_id' };
  const sets: SQL[] = [];
  const pair = (key: string, previous: SQL, current: SQL) => sets.push(sql`${`$.changes.${key}`}, json_object('previous', json(${previous}), 'current', json(${current}))`);
  if (before.labels) pair('labels', labelsOfIds(before.labels), labelsOfTarget(type, oid));
  if (before.assignees) pair('assignees', usersOfIds(before.assignees, base), usersOfLinks(links.table, links.column, oid, base));
  if (before.reviewers) pair('reviewers', usersOfIds(before.reviewers, base), usersOfLinks('merge_request_reviewers', 'merge_request_id', oid, base));
  return sets.length ? sql`json_set(${literal}, ${sql.join(sets, sql`, `)})` : sql`${literal}`;
}
