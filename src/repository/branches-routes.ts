/** Branches (lib/api/branches.rb). */
import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { projects, repoBranches } from '../db/schema';
import { type Branch, branchEntity, BranchSchema } from './commit-entity';
import { forbidden, notFound } from '../platform/errors';
import { linkParamsFrom, MAX_COUNT, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { type AccessLevelRow, branchProtectionOf, canPushCode, canPushToBranchesOf, groupEntryGrants, projectProtectedBranchReads, type ProtectedBranchRow, type ProtectedBranchWithLevels, refMatches, withLevels } from './protected-branches';
import { branchCount, branchEntityReads } from './branch-reads';
import { commitAtRef } from './history-reads';
import { writeThenRead } from '../db/batch-reads';
import { isValidBranchName, storeCommit } from './commit-writer';
import { emptyRepoReads, readmeCommit } from './empty-repo-branch';
import type { CommitRow } from './repository-store';
import { apiMessage, type Found, readableRepoWith, TAGS, x } from './repository-support';

export function mountBranches(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/branches',
      summary: 'List repository branches',
      tags: TAGS,
      params: params({ id: g.string(), search: g.search().optional(), regex: g.string().optional(), sort: g.enum(['name_asc', 'updated_asc', 'updated_desc']).optional(), ...paginationParams }),
      responses: { 200: z.array(BranchSchema) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      let regex: RegExp | null | undefined = null;
      if (p.regex !== undefined) {
        try {
          regex = new RegExp(p.regex);
        } catch {
          regex = undefined;
        }
      }
      // Sorting by update time or a regex filter work over all the project's branches in memory (a
      // repository's branch count is small); otherwise the page, its count and everything its
      // entities show come with the project in one round trip.
      const whole = regex !== null || p.sort !== undefined;
      const f = { search: p.search };
      const [limit, offset] = whole ? [-1, 0] : [req.perPage, req.offset];
      const found = await readableRepoWith(c, caller, p.id, (pid) => [...branchEntityReads(db, pid, f, limit, offset), branchCount(db, pid, f, MAX_COUNT + 1)]);
      if (regex === undefined) throw apiMessage(400, 'Regex is invalid');
      const [page, pbRows, pbLevels, defaults, merged, counted] = found.reads;
      let rows = page;
      if (whole) {
        rows = page.filter((b) => !regex || regex.test(b.branch.name));
        if (p.sort === 'updated_asc') rows.sort((a, b) => a.branch.updatedAt - b.branch.updatedAt || a.branch.id - b.branch.id);
        if (p.sort === 'updated_desc') rows.sort((a, b) => b.branch.updatedAt - a.branch.updatedAt || b.branch.id - a.branch.id);
        const total = rows.length;
        rows = rows.slice(req.offset, req.offset + req.perPage);
        setPaginationHeaders(c, req, linkParamsFrom(raw, {}), total, rows.length);
      } else {
        const n = Number(counted[0]?.n ?? 0);
        setPaginationHeaders(c, req, linkParamsFrom(raw, {}), n > MAX_COUNT ? null : n, rows.length);
      }
      return c.json(await presentBranches(c, caller, found, rows, { protectedBranches: withLevels(pbRows, pbLevels), defaultHead: defaults[0]?.sha, merged: merged.map((m) => m.sha) }));
    },
  );

  const branchRef = params({ id: g.string(), branch: g.string() });
  r.route({ method: 'GET', path: '/projects/:id/repository/branches/:branch', summary: 'Get a single repository branch', tags: TAGS, params: branchRef, responses: { 200: BranchSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const f = { name: p.branch };
    const found = await readableRepoWith(c, caller, p.id, (pid) => branchEntityReads(db, pid, f, 1, 0));
    const [page, pbRows, pbLevels, defaults, merged] = found.reads;
    if (!page.length) throw notFound('Branch');
    return c.json((await presentBranches(c, caller, found, page, { protectedBranches: withLevels(pbRows, pbLevels), defaultHead: defaults[0]?.sha, merged: merged.map((m) => m.sha) }))[0]);
  });

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/repository/branches',
      summary: 'Create repository branch',
      tags: TAGS,
      params: params({ id: g.string(), branch: g.string(), ref: g.string() }),
      responses: { 201: BranchSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      // One round trip for the checks (the project, its protection rules, the branch, the ref,
      // whether the repository is empty and what a first push's hooks read), one for the write and
      // the new branch's entity read back.
      let empty: ReturnType<typeof emptyRepoReads> | undefined;
      const found = await readableRepoWith(c, caller, p.id, (projectId) => {
        empty = emptyRepoReads(db, projectId);
        return [
          ...projectProtectedBranchReads(db, projectId),
          db.select({ id: repoBranches.id }).from(repoBranches).where(and(sql`${repoBranches.projectId} = ${projectId}`, eq(repoBranches.name, p.branch))).limit(1),
          commitAtRef(db, projectId, p.ref),
          ...empty.list,
        ];
      });
      const [pbRows, pbLevels, existing, [ref], ...rest] = found.reads as unknown as [ProtectedBranchRow[], AccessLevelRow[], { id: number }[], CommitRow[], ...unknown[]];
      const repo = empty!.take(rest);
      const pid = found.project.id;
      // branches.rb: authorize_push_to_branch!(params[:branch]).
      const rules = withLevels(pbRows, pbLevels);
      const groups = await groupEntryGrants(c, caller, found.project.id, rules);
      if (!canPushToBranchesOf(caller, found.level, rules, [p.branch], { archived: found.project.archived, groups }).get(p.branch)) throw forbidden('You are not allowed to push into this branch');
      // Branches::CreateService: name validity, existence, then the ref.
      if (!isValidBranchName(p.branch)) throw apiMessage(400, 'Branch name is invalid');
      if (existing.length) throw apiMessage(400, 'Branch already exists');
      const f = { name: p.branch };
      const facts = (reads: Awaited<ReturnType<typeof writeThenRead<ReturnType<typeof branchEntityReads>>>>) => {
        const [page, rows, levels, defaults, merged] = reads;
        return { page, facts: { protectedBranches: withLevels(rows, levels), defaultHead: defaults[0]?.sha, merged: merged.map((m) => m.sha) } };
      };
      if (repo.empty) {
        // create_default_branch_if_empty: README.md on the default branch, then the branch from it.
        const readme = await readmeCommit(c, caller, user, { project: found.project, level: found.level, branch: p.branch, ref: p.ref, protection: { rows: pbRows, levels: pbLevels }, prefetched: repo.prefetched });
        const stored = await storeCommit(c, readme.written, readme.extra, branchEntityReads(db, sql`${pid}`, f, 1, 0));
        if (!stored) throw apiMessage(400, 'Branch already exists');
        const { page, facts: pageFacts } = facts(stored);
        return c.json((await presentBranches(c, caller, { ...found, project: { ...found.project, defaultBranch: found.project.defaultBranch ?? readme.defaultBranch } }, page, pageFacts))[0], 201);
      }
      if (!ref) throw apiMessage(400, 'Invalid reference name: ' + p.ref);
      const now = Date.now();
      let reads;
      try {
        reads = await writeThenRead(
          db,
          [
            db.insert(repoBranches).values({ projectId: pid, name: p.branch, commitSha: ref.sha, createdAt: now, updatedAt: now }),
            db.update(projects).set({ defaultBranch: p.branch }).where(and(eq(projects.id, pid), sql`${projects.defaultBranch} IS NULL`)),
          ],
          branchEntityReads(db, sql`${pid}`, f, 1, 0),
        );
      } catch (err) {
        if (/UNIQUE constraint failed/i.test(String((err as Error).message) + String((err as { cause?: Error }).cause?.message))) throw apiMessage(400, 'Branch already exists');
        throw err;
      }
      const { page, facts: pageFacts } = facts(reads);
      return c.json((await presentBranches(c, caller, { ...found, project: { ...found.project, defaultBranch: found.project.defaultBranch ?? p.branch } }, page, pageFacts))[0], 201);
    },
  );

  r.route({ method: 'DELETE', path: '/projects/:id/repository/branches/:branch', summary: 'Delete repository branch', tags: TAGS, params: branchRef, responses: { 204: null } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const db = c.var.db;
    // The project, the branch and the project's protection rules: one round trip, then the delete.
    const found = await readableRepoWith(c, caller, p.id, (pid) => [
      db.select().from(repoBranches).where(and(sql`${repoBranches.projectId} = ${pid}`, eq(repoBranches.name, p.branch))).limit(1),
      ...projectProtectedBranchReads(db, pid),
    ] as const);
    const [[branch], rules, levels] = found.reads;
    // branches.rb: `authorize_push_project!` (push_code, plain 403) comes before `find_branch!`.
    if (!canPushCode(caller, found.level, found.project.archived)) throw forbidden();
    if (!branch) throw notFound('Branch');
    // Branches::DeleteService: push access to the branch, never the default branch, never a protected one.
    const protectedBranches = withLevels(rules, levels);
    const groups = await groupEntryGrants(c, caller, found.project.id, protectedBranches);
    if (!canPushToBranchesOf(caller, found.level, protectedBranches, [p.branch], { archived: found.project.archived, groups }).get(p.branch)) throw forbidden('You are not allowed to push into this branch');
    if (branch.name === found.project.defaultBranch) throw apiMessage(405, 'The default branch of a project cannot be deleted.');
    if (protectedBranches.some((pb) => refMatches(pb.name, branch.name))) throw apiMessage(405, 'Protected branch cant be deleted');
    await db.delete(repoBranches).where(and(eq(repoBranches.id, branch.id), eq(repoBranches.commitSha, branch.commitSha)));
    return c.body(null, 204);
  });
}

/** What a page of Branch entities shows beyond each branch and its commit, read with the page (branch-reads.ts). */
interface BranchPageFacts {
  protectedBranches: ProtectedBranchWithLevels[];
  /** The default branch's head commit, when the default branch exists. */
  defaultHead: string | undefined;
  /** The page's heads that are in the default branch's history. */
  merged: string[];
}

/** Branch entities of a page: protection, push rights and `merged` (into the default branch) for each; no storage access unless a rule names a group. */
async function presentBranches(c: Context<AppEnv>, caller: Caller, found: Found & { fullPath: string }, rows: { branch: { name: string; commitSha: string }; commit: CommitRow }[], facts: BranchPageFacts): Promise<Branch[]> {
  const names = rows.map((r) => r.branch.name);
  const protection = branchProtectionOf(facts.protectedBranches, names);
  // Group entries are the only thing that may read more (groupEntryGrants: only when a rule names a group).
  const groups = await groupEntryGrants(c, caller, found.project.id, facts.protectedBranches);
  const canPush = canPushToBranchesOf(caller, found.level, facts.protectedBranches, names, { archived: found.project.archived, groups });
  const defaultBranch = found.project.defaultBranch;
  const defaultHead = facts.defaultHead;
  const inDefault = new Set(facts.merged);
  return rows.map(({ branch: b, commit }) => {
    const pr = protection.get(b.name);
    // Repository#merged_to_root_ref?: `!same_head && ancestor?`, so a branch at the default head is not merged.
    const merged = Boolean(defaultHead) && b.name !== defaultBranch && b.commitSha !== defaultHead && inDefault.has(b.commitSha);
    return branchEntity(
      b.name,
      commit,
      {
        merged,
        protected: pr?.protected ?? false,
        developersCanPush: pr?.developersCanPush ?? false,
        developersCanMerge: pr?.developersCanMerge ?? false,
        canPush: canPush.get(b.name) ?? false,
        default: b.name === defaultBranch,
      },
      x(c, found),
    );
  });
}
