/**
 * Repository endpoints without git transport (lib/api/commits.rb, branches.rb, files.rb,
 * repositories.rb): commits written through the API, read back as commits, branches, files, trees
 * and comparisons. Storage and object ids: services/repository.ts.
 */
import { and, count, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { projects, repoBranches } from '../db/schema';
import { branchEntity, commitDetail, commitEntity } from './commit-entity';
import { ApiError, forbidden, grapeError, notFound } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { branchProtection, canPushToBranch, canPushToBranches, defaultBranchProtectionStatements, isProtectedBranch } from './protected-branches';
import { findReadableProject, readCode } from '../projects/projects';
import { pushStatements } from './push';
import {
  buildCommit,
  type CommitAction,
  CommitError,
  type CommitRow,
  commitsBetween,
  diffsBetween,
  fileAt,
  findBranch,
  findCommit,
  hasCommits,
  history,
  isAncestor,
  isValidBranchName,
  lastCommitForPath,
  listBranches,
  manifestOf,
  mergeBase,
  readBlob,
  resolveRef,
  storeCommit,
} from './repository';
import { settingsOf } from '../settings/settings';

const TAGS = ['repository'];
type Found = Awaited<ReturnType<typeof findReadableProject>>;

/** `authorize! :read_code`: reporters on private projects, anyone who can see a public one. */
async function readableRepo(c: Context<AppEnv>, caller: Caller, id: string): Promise<Found & { fullPath: string }> {
  const found = await findReadableProject(c, caller, id);
  if (!readCode(caller, found.project, found.level)) throw forbidden();
  return { ...found, fullPath: `${found.namespace.fullPath}/${found.project.path}` };
}

const x = (c: Context<AppEnv>, f: { fullPath: string }) => ({ base: baseUrl(c), projectFullPath: f.fullPath });

/** Grape's messages for the nested `actions` hashes (commits.rb `requires :actions, type: Array do ... end`). */
function parseActions(raw: unknown): CommitAction[] {
  const items = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw as Record<string, unknown>) : null;
  if (!items) throw grapeError('actions is invalid');
  if (!items.length) throw grapeError('actions is empty');
  return items.map((item, i) => {
    const at = (k: string) => `actions[${i}][${k}]`;
    if (!item || typeof item !== 'object') throw grapeError(`${at('action')} is missing, ${at('file_path')} is missing`);
    const a = item as Record<string, unknown>;
    const str = (k: string) => (a[k] === undefined || a[k] === null ? undefined : typeof a[k] === 'string' || typeof a[k] === 'number' ? String(a[k]) : undefined);
    const action = str('action');
    const missing: string[] = [];
    if (action === undefined) missing.push(`${at('action')} is missing`);
    if (str('file_path') === undefined) missing.push(`${at('file_path')} is missing`);
    if (missing.length) throw grapeError(missing.join(', '));
    if (!['create', 'update', 'move', 'delete', 'chmod'].includes(action!)) throw grapeError(`${at('action')} does not have a valid value`);
    const encoding = str('encoding') ?? 'text';
    if (encoding !== 'text' && encoding !== 'base64') throw grapeError(`${at('encoding')} does not have a valid value`);
    if (action === 'update' && str('content') === undefined) throw grapeError(`${at('content')} is missing`);
    if (action === 'move' && str('previous_path') === undefined) throw grapeError(`${at('previous_path')} is missing`);
    const mode = a.execute_filemode;
    const execute = mode === true || mode === 'true' || mode === 1 || mode === '1' ? true : mode === false || mode === 'false' || mode === 0 || mode === '0' ? false : undefined;
    if (action === 'chmod' && execute === undefined) throw grapeError(`${at('execute_filemode')} ${mode === undefined ? 'is missing' : 'is invalid'}`);
    return {
      action,
      file_path: str('file_path')!,
      previous_path: str('previous_path'),
      content: str('content'),
      encoding,
      last_commit_id: str('last_commit_id'),
      execute_filemode: execute,
    } as CommitAction;
  });
}

const createCommitParams = params(
  {
    id: g.string(),
    branch: g.string(),
    commit_message: g.string(),
    actions: z.unknown(),
    start_branch: g.string().optional(),
    start_sha: g.string().optional(),
    start_project: g.string().optional(),
    author_email: g.string().optional(),
    author_name: g.string().optional(),
    stats: g.bool().default(true),
    force: g.bool().default(false),
  },
  [{ mutuallyExclusive: ['start_branch', 'start_sha'] }],
);

export function mountRepository(r: Router) {
  r.route(
    { method: 'POST', path: '/projects/:id/repository/commits', summary: 'Create a commit with multiple files and actions', tags: TAGS, params: createCommitParams, status: 201 },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      if (p.actions === undefined) throw grapeError('actions is missing');
      if (!p.branch) throw grapeError('branch is empty');
      const actions = parseActions(p.actions);
      const found = await readableRepo(c, caller, p.id);
      const db = c.var.db;
      const pid = found.project.id;
      if (p.start_project !== undefined && p.start_project !== String(pid) && p.start_project !== found.fullPath)
        throw grapeError('start_project is not supported: commits start from the same project', 400);
      const empty = !(await hasCommits(db, pid));
      // commits.rb: authorize_push_to_branch!(params[:branch]).
      if (!(await canPushToBranch(c, caller, found.level, pid, p.branch, { emptyRepo: empty, archived: found.project.archived })))
        throw forbidden('You are not allowed to push into this branch');
      if (!isValidBranchName(p.branch)) throw apiMessage(400, `Branch name is invalid`);

      const target = await findBranch(db, pid, p.branch);
      // attrs[:start_branch] ||= attrs[:branch_name] unless attrs[:start_sha]
      let parent: string | null = null;
      if (p.start_sha !== undefined) {
        const start = await resolveRef(db, pid, p.start_sha);
        if (!start || start.sha !== p.start_sha.toLowerCase().padEnd(40, start.sha.slice(p.start_sha.length))) throw apiMessage(400, `Invalid start sha: ${p.start_sha}`);
        parent = start.sha;
      } else {
        const startBranch = p.start_branch ?? p.branch;
        const start = await findBranch(db, pid, startBranch);
        // Files::BaseService#validate_on_branch!: a non-empty repository needs an existing start branch.
        if (!start && !empty) throw apiMessage(400, 'You can only create or edit files when you are on a branch');
        parent = start?.commitSha ?? null;
      }
      const startsElsewhere = p.start_sha !== undefined || (p.start_branch !== undefined && p.start_branch !== p.branch);
      // validate_branch_existence!: another start than the branch itself needs `force` to overwrite it.
      if (target && startsElsewhere && !p.force) throw apiMessage(400, `A branch called '${p.branch}' already exists. Switch to that branch in order to make changes`);

      const name = p.author_name ?? user.name;
      const email = p.author_email ?? user.email;
      let written;
      try {
        written = await buildCommit(c, {
          projectId: pid,
          branch: p.branch,
          parent,
          expectedHead: target?.commitSha ?? null,
          message: p.commit_message,
          author: { name, email },
          // Gitaly writes the API user as the committer.
          committer: { name: user.name, email: user.email },
          userId: user.id,
          actions,
        });
      } catch (err) {
        if (err instanceof CommitError) throw apiMessage(400, err.message);
        throw err;
      }
      const settings = (await settingsOf(c)) as Record<string, unknown>;
      const defaultBranch = found.project.defaultBranch ?? p.branch;
      const protect = empty && p.branch === defaultBranch ? defaultBranchProtectionStatements(db, found.project, p.branch, settings, { now: written.commit.committedAt }) : [];
      // MergeRequests::RefreshService for the open merge requests from this branch, in the push's batch.
      const oldSha = target?.commitSha ?? null;
      // A push starting elsewhere (start_branch, start_sha with force) also brings the start's commits the branch lacked.
      const between = oldSha && parent && parent !== oldSha ? (await commitsBetween(db, pid, oldSha, parent)).reverse() : [];
      const refresh = await pushStatements(c, { projectId: pid, branch: p.branch, oldSha, commits: [...between, written.commit], manifest: written.files, from: parent, user, at: Date.now() });
      const ok = await storeCommit(c, written, [...protect, ...refresh]);
      // Lost a race with another push to the same branch: Gitaly's answer for a moved ref.
      if (!ok) throw apiMessage(400, `Could not update refs/heads/${p.branch}. Please refresh and try again.`);
      const commit = (await findCommit(db, pid, written.commit.sha)) ?? written.commit;
      return c.json(commitDetail(commit, { ...x(c, found), stats: p.stats }), 201);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/commits',
      summary: 'List repository commits',
      tags: TAGS,
      params: params({
        id: g.string(),
        ref_name: g.string().optional(),
        since: g.datetime().optional(),
        until: g.datetime().optional(),
        path: g.string().optional(),
        author: g.string().optional(),
        all: g.bool().optional(),
        with_stats: g.bool().optional(),
        first_parent: g.bool().optional(),
        order: g.enum(['default', 'topo']).default('default'),
        trailers: g.bool().optional(),
        ...paginationParams,
      }),
    },
    async ({ c, p, caller }) => {
      const found = await readableRepo(c, caller, p.id);
      const db = c.var.db;
      const pid = found.project.id;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      let rows: CommitRow[] = [];
      if (p.all) {
        const heads = await db.select({ sha: repoBranches.commitSha }).from(repoBranches).where(eq(repoBranches.projectId, pid)).all();
        const seen = new Map<string, CommitRow>();
        for (const h of heads) for (const r of await history(db, pid, h.sha, { since: p.since, until: p.until, path: p.path })) seen.set(r.sha, r);
        rows = [...seen.values()].sort((a, b) => b.committedAt - a.committedAt || b.generation - a.generation);
      } else {
        const ref = p.ref_name ?? found.project.defaultBranch ?? null;
        const head = ref ? await resolveRef(db, pid, ref) : null;
        // An unknown ref (or an empty repository) lists nothing, as Gitaly's FindCommits does.
        if (head) rows = await history(db, pid, head.sha, { since: p.since, until: p.until, path: p.path, firstParent: p.first_parent });
      }
      if (p.author) {
        const a = p.author.toLowerCase();
        rows = rows.filter((r) => r.authorName.toLowerCase().includes(a) || r.authorEmail.toLowerCase().includes(a));
      }
      const page = rows.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), rows.length, page.length);
      return c.json(page.map((r) => (p.with_stats ? commitDetail(r, { ...x(c, found), stats: true }) : commitEntity(r, x(c, found)))));
    },
  );

  const commitRef = params({ id: g.string(), sha: g.string(), stats: g.bool().default(true) });
  r.route({ method: 'GET', path: '/projects/:id/repository/commits/:sha', summary: 'Get a single commit', tags: TAGS, params: commitRef }, async ({ c, p, caller }) => {
    const found = await readableRepo(c, caller, p.id);
    const commit = await resolveRef(c.var.db, found.project.id, p.sha);
    if (!commit) throw notFound('Commit');
    return c.json(commitDetail(commit, { ...x(c, found), stats: p.stats }));
  });

  r.route(
    { method: 'GET', path: '/projects/:id/repository/commits/:sha/diff', summary: 'Get the diff of a commit', tags: TAGS, params: params({ id: g.string(), sha: g.string(), unidiff: g.bool().optional(), ...paginationParams }) },
    async ({ c, p, caller }) => {
      const found = await readableRepo(c, caller, p.id);
      const commit = await resolveRef(c.var.db, found.project.id, p.sha);
      if (!commit) throw notFound('Commit');
      const diffs = await diffsBetween(c, found.project.id, commit.parentShas[0] ?? null, commit.sha);
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const page = diffs.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), diffs.length, page.length);
      return c.json(page);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/compare',
      summary: 'Compare branches, tags or commits',
      tags: TAGS,
      params: params({ id: g.string(), from: g.string(), to: g.string(), from_project_id: g.int().optional(), straight: g.bool().default(false), unidiff: g.bool().optional() }),
    },
    async ({ c, p, caller }) => {
      const found = await readableRepo(c, caller, p.id);
      const db = c.var.db;
      const pid = found.project.id;
      const [from, to] = await Promise.all([resolveRef(db, pid, p.from), resolveRef(db, pid, p.to)]);
      if (!from || !to) throw notFound('Ref');
      // straight=false compares from the merge base (git diff from...to); straight=true from `from` itself.
      const base = p.straight ? from.sha : ((await mergeBase(db, pid, from.sha, to.sha)) ?? null);
      const commits = (await commitsBetween(db, pid, from.sha, to.sha)).reverse();
      const diffs = await diffsBetween(c, pid, base, to.sha);
      return c.json({
        commit: commits.length ? commitEntity(commits[commits.length - 1], x(c, found)) : null,
        commits: commits.map((cm) => commitEntity(cm, x(c, found))),
        diffs,
        compare_timeout: false,
        compare_same_ref: from.sha === to.sha,
        web_url: `${baseUrl(c)}/${found.fullPath}/-/compare/${from.sha}...${to.sha}`,
      });
    },
  );

  // ------------------------------------------------------------------------------------------
  // Branches

  async function presentBranches(c: Context<AppEnv>, caller: Caller, found: Found & { fullPath: string }, rows: { name: string; commitSha: string }[]) {
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

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/branches',
      summary: 'List repository branches',
      tags: TAGS,
      params: params({ id: g.string(), search: g.string().optional(), regex: g.string().optional(), sort: g.enum(['name_asc', 'updated_asc', 'updated_desc']).optional(), ...paginationParams }),
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
  r.route({ method: 'GET', path: '/projects/:id/repository/branches/:branch', summary: 'Get a single repository branch', tags: TAGS, params: branchRef }, async ({ c, p, caller }) => {
    const found = await readableRepo(c, caller, p.id);
    const branch = await findBranch(c.var.db, found.project.id, p.branch);
    if (!branch) throw notFound('Branch');
    return c.json((await presentBranches(c, caller, found, [branch]))[0]);
  });

  r.route(
    { method: 'POST', path: '/projects/:id/repository/branches', summary: 'Create repository branch', tags: TAGS, params: params({ id: g.string(), branch: g.string(), ref: g.string() }), status: 201 },
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

  r.route({ method: 'DELETE', path: '/projects/:id/repository/branches/:branch', summary: 'Delete repository branch', tags: TAGS, params: branchRef, status: 204 }, async ({ c, p, caller }) => {
    requireUser(caller);
    const found = await readableRepo(c, caller, p.id);
    const db = c.var.db;
    const pid = found.project.id;
    const branch = await findBranch(db, pid, p.branch);
    if (!branch) throw notFound('Branch');
    // Branches::DeleteService: push access to the branch, never the default branch, never a protected one.
    if (!(await canPushToBranch(c, caller, found.level, pid, p.branch, { archived: found.project.archived }))) throw forbidden('You are not allowed to push into this branch');
    if (branch.name === found.project.defaultBranch) throw apiMessage(405, 'The default branch of a project cannot be deleted.');
    if (await isProtectedBranch(db, pid, branch.name)) throw apiMessage(405, 'Protected branch cant be deleted');
    await db.delete(repoBranches).where(and(eq(repoBranches.id, branch.id), eq(repoBranches.commitSha, branch.commitSha)));
    return c.body(null, 204);
  });

  // ------------------------------------------------------------------------------------------
  // Files and trees

  const fileParams = params({ id: g.string(), file_path: g.string(), ref: g.string().optional() });
  async function findFile(c: Context<AppEnv>, caller: Caller, p: { id: string; file_path: string; ref?: string }, refRequired: boolean) {
    if (refRequired && p.ref === undefined) throw grapeError('ref is missing');
    const found = await readableRepo(c, caller, p.id);
    const db = c.var.db;
    const ref = p.ref ?? found.project.defaultBranch ?? '';
    const commit = await resolveRef(db, found.project.id, ref);
    const file = commit ? await fileAt(db, found.project.id, commit.sha, p.file_path) : null;
    if (!commit || !file) throw notFound('File');
    return { found, commit, file, ref };
  }

  r.route({ method: 'GET', path: '/projects/:id/repository/files/:file_path', summary: 'Get file from repository', tags: TAGS, params: fileParams }, async ({ c, p, caller }) => {
    const { found, commit, file, ref } = await findFile(c, caller, p, true);
    const bytes = (await readBlob(c, found.project.id, file.blobSha)) ?? new Uint8Array();
    const { createHash } = await import('node:crypto');
    return c.json({
      file_name: p.file_path.split('/').pop(),
      file_path: p.file_path,
      size: file.size,
      encoding: 'base64',
      content_sha256: createHash('sha256').update(bytes).digest('hex'),
      ref,
      blob_id: file.blobSha,
      commit_id: commit.sha,
      last_commit_id: await lastCommitForPath(c.var.db, found.project.id, commit.sha, p.file_path),
      execute_filemode: file.mode === '100755',
      content: Buffer.from(bytes).toString('base64'),
    });
  });

  r.route({ method: 'GET', path: '/projects/:id/repository/files/:file_path/raw', summary: 'Get raw file from repository', tags: TAGS, params: fileParams }, async ({ c, p, caller }) => {
    const { found, file } = await findFile(c, caller, p, false);
    const bytes = (await readBlob(c, found.project.id, file.blobSha)) ?? new Uint8Array();
    return c.body(bytes as unknown as ArrayBuffer, 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Gitlab-Blob-Id': file.blobSha, 'X-Gitlab-Size': String(file.size) });
  });

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/tree',
      summary: 'List repository tree',
      tags: TAGS,
      params: params({ id: g.string(), path: g.string().optional(), ref: g.string().optional(), recursive: g.bool().default(false), ...paginationParams }),
    },
    async ({ c, p, caller }) => {
      const found = await readableRepo(c, caller, p.id);
      const db = c.var.db;
      const ref = p.ref ?? found.project.defaultBranch ?? '';
      const commit = await resolveRef(db, found.project.id, ref);
      if (!commit) throw notFound('Tree');
      const dir = (p.path ?? '').replace(/^\/+|\/+$/g, '');
      const prefix = dir ? `${dir}/` : '';
      const files = await manifestOf(db, found.project.id, commit.sha);
      const entries = new Map<string, { id: string; name: string; type: 'tree' | 'blob'; path: string; mode: string }>();
      const { treeId } = await import('./git-objects');
      for (const [path, e] of files) {
        if (!path.startsWith(prefix)) continue;
        const rest = path.slice(prefix.length).split('/');
        const depth = p.recursive ? rest.length : 1;
        for (let i = 1; i <= Math.min(depth, rest.length); i++) {
          const entryPath = prefix + rest.slice(0, i).join('/');
          if (entries.has(entryPath)) continue;
          const isFile = i === rest.length;
          if (isFile) entries.set(entryPath, { id: e.blobSha, name: rest[i - 1], type: 'blob', path: entryPath, mode: e.mode });
          else {
            const sub = new Map([...files].filter(([fp]) => fp.startsWith(`${entryPath}/`)).map(([fp, fe]) => [fp.slice(entryPath.length + 1), fe]));
            entries.set(entryPath, { id: treeId(sub), name: rest[i - 1], type: 'tree', path: entryPath, mode: '040000' });
          }
        }
      }
      if (dir && !entries.size) throw notFound('Tree');
      // Gitaly's default tree order: trees first, then blobs, each by path.
      const list = [...entries.values()].sort((a, b) => (a.type === b.type ? (a.path < b.path ? -1 : 1) : a.type === 'tree' ? -1 : 1));
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const page = list.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), list.length, page.length);
      return c.json(page);
    },
  );
}

/** render_api_error!(message, status): `{"message": "..."}`. */
const apiMessage = (status: number, message: string) => new ApiError(status, { message });
