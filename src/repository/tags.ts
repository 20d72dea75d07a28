/**
 * Tags: their reads (as unexecuted statements for the batch that finds the project), their order
 * (TagsFinder: name, updated, version), and what a new tag is (Tags::CreateService). Protection
 * rules: protected-tags.ts.
 */
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { repoCommits, repoTags } from '../db/schema';
import { aliasedColumns } from '../db/aliased-columns';
import { tagId } from './git-objects';
import type { CommitRow } from './repository-store';

export type TagRow = typeof repoTags.$inferSelect;
export interface TagWithCommit {
  tag: TagRow;
  commit: CommitRow;
}

/** Commit columns named apart from the tag's (D1 batches key rows by column name). */
const COMMIT = aliasedColumns(repoCommits, 'c_');

/**
 * The project's tags (or the one named) with their commits, in name order. A repository's tags are
 * few: searching, ordering and paging happen in memory (`searchTags`, `orderTags`), as TagsFinder
 * filters what Gitaly lists.
 */
export const tagRows = (db: Db, projectId: SQL, name?: string) =>
  db
    .select({ tag: repoTags, commit: COMMIT })
    .from(repoTags)
    .innerJoin(repoCommits, and(eq(repoCommits.projectId, repoTags.projectId), eq(repoCommits.sha, repoTags.commitSha)))
    .where(name === undefined ? sql`${repoTags.projectId} = ${projectId}` : and(sql`${repoTags.projectId} = ${projectId}`, eq(repoTags.name, name)))
    .orderBy(asc(repoTags.name));

/** TagsFinder#filter_by_name: `^prefix`, `suffix$`, else a substring, all case-insensitive. */
export function searchTags(rows: TagWithCommit[], search: string | undefined): TagWithCommit[] {
  if (!search) return rows;
  const s = search.toLowerCase();
  const test = s.startsWith('^') ? (n: string) => n.startsWith(s.slice(1)) : s.endsWith('$') ? (n: string) => n.endsWith(s.slice(0, -1)) : (n: string) => n.includes(s);
  return rows.filter((r) => test(r.tag.name.toLowerCase()));
}

/** `git for-each-ref --sort=creatordate`: an annotated tag's tagger date, else its commit's committer date. */
const creatorDate = (t: TagWithCommit) => t.tag.taggedAt ?? t.commit.committedAt;

/** `--sort=version:refname`: runs of digits compare as numbers, the rest as bytes. */
export function compareVersions(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]];
    const numeric = /^\d/.test(x) && /^\d/.test(y);
    const d = numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
    if (d) return d;
  }
  return pa.length - pb.length;
}

const byName = (a: TagWithCommit, b: TagWithCommit) => (a.tag.name < b.tag.name ? -1 : a.tag.name > b.tag.name ? 1 : 0);

/** TagsFinder's `<order_by>_<sort>` (Gitaly's FindAllTags sort by refname, creatordate or version:refname). */
export function orderTags(rows: TagWithCommit[], orderBy: 'name' | 'updated' | 'version', sort: 'asc' | 'desc'): TagWithCommit[] {
  const cmp =
    orderBy === 'name'
      ? byName
      : orderBy === 'version'
        ? (a: TagWithCommit, b: TagWithCommit) => compareVersions(a.tag.name, b.tag.name)
        : (a: TagWithCommit, b: TagWithCommit) => creatorDate(a) - creatorDate(b) || byName(a, b);
  const sorted = [...rows].sort(cmp);
  return sort === 'desc' ? sorted.reverse() : sorted;
}

export interface Tagger {
  userId: number;
  name: string;
  email: string;
}

/**
 * The row of a new tag on `commit` (Repository#add_tag): annotated when there is a message (its
 * target is the tag object, tagged by the API user now), lightweight otherwise.
 */
export function newTagRow(projectId: number, name: string, commitSha: string, message: string | undefined, tagger: Tagger, now: number): typeof repoTags.$inferInsert {
  const annotated = Boolean(message);
  return {
    projectId,
    name,
    commitSha,
    targetSha: annotated ? tagId(commitSha, name, { name: tagger.name, email: tagger.email, at: now }, message!) : commitSha,
    message: annotated ? message! : null,
    taggerName: annotated ? tagger.name : null,
    taggerEmail: annotated ? tagger.email : null,
    // Git records whole seconds, so the date shown is the one hashed into the tag object.
    taggedAt: annotated ? Math.floor(now / 1000) * 1000 : null,
    userId: tagger.userId,
    createdAt: now,
  };
}
