/**
 * Questions about refs: the merge base of several refs (repositories.rb `merge_base`) and the
 * branches and tags containing a commit (commits.rb `commits/:sha/refs`).
 */
import { asc, desc, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { repoBranches, repoCommits, repoTags } from '../db/schema';
import { notFound } from '../platform/errors';
import { linkParamsFrom, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { commitEntity, CommitSchema } from './commit-entity';
import { ancestry } from './history';
import { commitAtRef, refSha } from './history-reads';
import { apiMessage, readableRepoWith, TAGS, x } from './repository-support';
import { BasicRefSchema } from './tags-entity';

/**
 * Refs a merge base may take at once. GitLab sets none; each ref here is a statement of the first
 * batch and an ancestry of the second, and D1 binds at most 100 values per statement.
 */
const MERGE_BASE_REFS = 20;

/**
 * `git merge-base A B C...` (Gitaly FindMergeBase): the best common ancestor of A and a hypothetical
 * merge of the others, so a commit in A's history and in any other's; the best is the one of highest
 * generation, as `mergeBase` chooses between two.
 */
function mergeBaseOf(db: Db, projectId: number, shas: string[]) {
  const [first, ...rest] = shas;
  const others = rest.map((sha, i) => sql`SELECT sha FROM ${sql.raw(`o${i}`)}`);
  const ctes = sql.join([ancestry('a', projectId, first), ...rest.map((sha, i) => ancestry(`o${i}`, projectId, sha))], sql`, `);
  return db
    .select()
    .from(repoCommits)
    .where(sql`${repoCommits.projectId} = ${projectId} AND ${repoCommits.sha} IN (WITH RECURSIVE ${ctes} SELECT sha FROM a INTERSECT SELECT * FROM (${sql.join(others, sql` UNION `)}))`)
    .orderBy(desc(repoCommits.generation), desc(repoCommits.committedAt))
    .limit(1);
}

/** The commit a ref names and its descendants (walked along the parent index), as an SQL set. */
const descendants = (projectId: SQL, start: SQL) =>
  sql`(WITH RECURSIVE d(sha) AS (SELECT ${start} UNION SELECT p.sha FROM d CROSS JOIN repo_commit_parents p ON p.project_id = ${projectId} AND p.parent_sha = d.sha) SELECT sha FROM d WHERE sha IS NOT NULL)`;

export function mountRefs(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/merge_base',
      summary: 'Get the common ancestor between commits',
      tags: TAGS,
      params: params({ id: g.string(), refs: g.csv({ max: MERGE_BASE_REFS }) }),
      responses: { 200: CommitSchema },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const refs = p.refs;
      // One round trip for the project and what each ref names, one for the ancestry walk.
      const found = await readableRepoWith(c, caller, p.id, (pid) => refs.map((ref) => commitAtRef(db, pid, ref)));
      if (refs.length < 2) throw apiMessage(400, 'Provide at least 2 refs');
      const commits = (found.reads as { sha: string }[][]).map((rows) => rows[0]);
      const unknown = refs.filter((_, i) => !commits[i]);
      if (unknown.length) throw apiMessage(400, `Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`);
      const [base] = await mergeBaseOf(db, found.project.id, commits.map((cm) => cm.sha));
      if (!base) throw notFound('Merge Base');
      return c.json(commitEntity(base, x(c, found)));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha/refs',
      summary: 'Get all references a commit is pushed to',
      tags: TAGS,
      params: params({ id: g.string(), sha: g.string(), type: g.enum(['branch', 'tag', 'all']).default('all'), ...paginationParams }),
      responses: { 200: z.array(BasicRefSchema) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      // The commit, and the branches and tags whose heads descend from it (`git branch --contains`,
      // `git tag --contains`, each in name order), come with the project in one round trip.
      const found = await readableRepoWith(c, caller, p.id, (pid) => {
        const within = descendants(pid, refSha(pid, p.sha));
        return [
          commitAtRef(db, pid, p.sha),
          db.select({ name: repoBranches.name }).from(repoBranches).where(sql`${repoBranches.projectId} = ${pid} AND ${repoBranches.commitSha} IN ${within}`).orderBy(asc(repoBranches.name)),
          db.select({ name: repoTags.name }).from(repoTags).where(sql`${repoTags.projectId} = ${pid} AND ${repoTags.commitSha} IN ${within}`).orderBy(asc(repoTags.name)),
        ] as const;
      });
      const [[commit], branches, tags] = found.reads;
      if (!commit) throw notFound('Commit');
      const refs = [
        ...(p.type === 'tag' ? [] : branches.map((b) => ({ type: 'branch' as const, name: b.name }))),
        ...(p.type === 'branch' ? [] : tags.map((t) => ({ type: 'tag' as const, name: t.name }))),
      ];
      const page = refs.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), refs.length, page.length);
      return c.json(page);
    },
  );
}
