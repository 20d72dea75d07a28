/** Branches (lib/api/branches.rb). */
import { and, count, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { projects, repoBranches } from '../db/schema';
import { type Branch, branchEntity, BranchSchema } from './commit-entity';
import { forbidden, notFound } from '../platform/errors';
import { linkParamsFrom, pageRequest, paginate, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { branchProtection, canPushCode, canPushToBranch, canPushToBranches, isProtectedBranch } from './protected-branches';
import { isValidBranchName } from './commit-writer';
import { isAncestor } from './history';
import { findBranch, findCommit, listBranches, resolveRef } from './repository-store';
import { apiMessage, type Found, readableRepo, TAGS, x } from './repository-support';

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
      const found = await readableRepo(c, caller, p.id);
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      let regex: RegExp | null = null;
      if (p.regex !== undefined) {
        try {
          regex = new RegExp(p.regex);
        } catch {
          throw apiMessage(400, 'Regex is invalid');
        }
      }
      let rows: { name: string; commitSha: string }[];
      if (regex || p.sort) {
        // Sorting by update time or a regex filter: over the project's branches in memory (a repository's branch count is small).
        const all = (await listBranches(db, found.project.id, { search: p.search, limit: -1, offset: 0 })).rows.filter((b) => !regex || regex.test(b.name));
        if (p.sort === 'updated_asc') all.sort((a, b) => a.updatedAt - b.updatedAt || a.id - b.id);
        if (p.sort === 'updated_desc') all.sort((a, b) => b.updatedAt - a.updatedAt || b.id - a.id);
        rows = all.slice(req.offset, req.offset + req.perPage);
        setPaginationHeaders(c, req, linkParamsFrom(raw, {}), all.length, rows.length);
      } else {
        const { where } = await listBranches(db, found.project.id, { search: p.search, limit: 0, offset: 0 });
        rows = await paginate(
          c,
          req,
          linkParamsFrom(raw, {}),
          async (limit, offset) => (await listBranches(db, found.project.id, { search: p.search, limit, offset })).rows,
          async (limit) => (await db.select({ n: count() }).from(db.select({ one: sql`1` }).from(repoBranches).where(where).limit(limit).as('x')).get())?.n ?? 0,
        );
      }
      return c.json(await presentBranches(c, caller, found, rows));
    },
  );

  const branchRef = params({ id: g.string(), branch: g.string() });
  r.route({ method: 'GET', path: '/projects/:id/repository/branches/:branch', summary: 'Get a single repository branch', tags: TAGS, params: branchRef, responses: { 200: BranchSchema } }, async ({ c, p, caller }) => {
    const found = await readableRepo(c, caller, p.id);
    const branch = await findBranch(c.var.db, found.project.id, p.branch);
    if (!branch) throw notFound('Branch');
    return c.json((await presentBranches(c, caller, found, [branch]))[0]);
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
      requireUser(caller);
      const found = await readableRepo(c, caller, p.id);
      const db = c.var.db;
      const pid = found.project.id;
      // branches.rb: authorize_push_to_branch!(params[:branch]).
      if (!(await canPushToBranch(c, caller, found.level, pid, p.branch, { archived: found.project.archived }))) throw forbidden('You are not allowed to push into this branch');
      // Branches::CreateService: name validity, existence, then the ref.
      if (!isValidBranchName(p.branch)) throw apiMessage(400, 'Branch name is invalid');
      if (await findBranch(db, pid, p.branch)) throw apiMessage(400, 'Branch already exists');
      const ref = await resolveRef(db, pid, p.ref);
      if (!ref) throw apiMessage(400, 'Invalid reference name: ' + p.ref);
      const now = Date.now();
      try {
        await db.batch([
          db.insert(repoBranches).values({ projectId: pid, name: p.branch, commitSha: ref.sha, createdAt: now, updatedAt: now }),
          db.update(projects).set({ defaultBranch: p.branch }).where(and(eq(projects.id, pid), sql`${projects.defaultBranch} IS NULL`)),
        ]);
      } catch (err) {
        if (/UNIQUE constraint failed/i.test(String((err as Error).message) + String((err as { cause?: Error }).cause?.message))) throw apiMessage(400, 'Branch already exists');
        throw err;
      }
      const branch = (await findBranch(db, pid, p.branch))!;
      return c.json((await presentBranches(c, caller, { ...found, project: { ...found.project, defaultBranch: found.project.defaultBranch ?? p.branch } }, [branch]))[0], 201);
    },
  );

  r.route({ method: 'DELETE', path: '/projects/:id/repository/branches/:branch', summary: 'Delete repository branch', tags: TAGS, params: branchRef, responses: { 204: null } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const found = await readableRepo(c, caller, p.id);
    const db = c.var.db;
    const pid = found.project.id;
    // branches.rb: `authorize_push_project!` (push_code, plain 403) comes before `find_branch!`.
    if (!canPushCode(caller, found.level, found.project.archived)) throw forbidden();
    const branch = await findBranch(db, pid, p.branch);
    if (!branch) throw notFound('Branch');
    // Branches::DeleteService: push access to the branch, never the default branch, never a protected one.
    if (!(await canPushToBranch(c, caller, found.level, pid, p.branch, { archived: found.project.archived }))) throw forbidden('You are not allowed to push into this branch');
    if (branch.name === found.project.defaultBranch) throw apiMessage(405, 'The default branch of a project cannot be deleted.');
    if (await isProtectedBranch(db, pid, branch.name)) throw apiMessage(405, 'Protected branch cant be deleted');
    await db.delete(repoBranches).where(and(eq(repoBranches.id, branch.id), eq(repoBranches.commitSha, branch.commitSha)));
    return c.body(null, 204);
  });
}

/** Branch entities of a page: protection, push rights and `merged` (into the default branch) for each. */

async function presentBranches(c: Context<AppEnv>, caller: Caller, found: Found & { fullPath: string }, rows: { name: string; commitSha: string }[]): Promise<Branch[]> {
  const db = c.var.db;
  const pid = found.project.id;
  const names = rows.map((b) => b.name);
  const [protection, canPush, commits] = await Promise.all([
    branchProtection(db, pid, names),
    canPushToBranches(c, caller, found.level, pid, names, { archived: found.project.archived }),
    Promise.all(rows.map((b) => findCommit(db, pid, b.commitSha))),
  ]);
  const defaultBranch = found.project.defaultBranch;
  const defaultHead = defaultBranch ? rows.find((b) => b.name === defaultBranch)?.commitSha ?? (await findBranch(db, pid, defaultBranch))?.commitSha : undefined;
  return Promise.all(
    rows.map(async (b, i) => {
      const pr = protection.get(b.name);
      // Repository#merged_to_root_ref?: `!same_head && ancestor?`, so a branch at the default head is not merged.
      const merged = Boolean(defaultHead) && b.name !== defaultBranch && b.commitSha !== defaultHead && (await isAncestor(db, pid, b.commitSha, defaultHead!));
      return branchEntity(
        b.name,
        commits[i]!,
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
    }),
  );
}
