/** Commits and comparisons (lib/api/commits.rb, repositories.rb compare): commits written through the API and read back. */
import { and, eq, sql } from 'drizzle-orm';
import { batchReads } from '../db/batch-reads';
import { repoBranches, repoCommits } from '../db/schema';
import { z } from 'zod';
import { commitDetail, CommitDetailSchema, commitEntity, CommitSchema, compareEntity, CompareSchema, DiffSchema } from './commit-entity';
import { forbidden, grapeError, notFound, validationFailed } from '../platform/errors';
import { checkText, MAX_TEXT_SIZE, NAME_MAX } from '../platform/text-limits';
import { linkParamsFrom, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { defaultBranchProtectionStatements, canPushToBranch, primeProtectedBranches, projectProtectedBranchReads } from './protected-branches';
import { withReadMemo } from '../platform/read-memo';
import { pushReads, pushStatements } from './push';
import { buildCommit, type CommitAction, CommitError, isValidBranchName, storeCommit } from './commit-writer';
import { diffsBetween, diffsOfManifests } from './diffs';
import { diffLimitsOf, limitDiffs } from './diff-limits';
import { cachedMergeBase, commitsBetween, commitsBetweenRows, mergeBaseQuery, newestFirst, rememberMergeBase } from './history';
import { cachedManifest, type CommitRow, findCommit, rememberManifest, resolveRef } from './repository-store';
import { branchSha, commitAt, commitAtRef, historyCount, type HistoryFilter, historyPage, lastCommitForPathAt, manifestRows, refSha } from './history-reads';
import { apiMessage, readableRepo, readableRepoWith, TAGS, x } from './repository-support';
import { settingsOf } from '../settings/settings';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { DEFAULT_BODY_LIMIT } from '../platform/limits';

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

const COMMIT_TEXT = { commit_message: { max: MAX_TEXT_SIZE }, author_name: { max: NAME_MAX }, author_email: { max: NAME_MAX } };

/** The commits list: Commit, or CommitDetail with `with_stats`. */
const CommitList = z.array(z.union([CommitSchema, CommitDetailSchema]));

/**
 * A commit carries whole files (base64 or text) in its JSON body, so it may be far larger than the
 * default body limit: the instance's upload bound, `max_attachment_size` (MB), with room for the JSON.
 */
const commitBodyLimit = async (c: Context<AppEnv>) => (await settingsOf(c)).max_attachment_size * 1024 * 1024 + DEFAULT_BODY_LIMIT;

export function mountCommits(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/:id/repository/commits',
      summary: 'Create a commit with multiple files and actions',
      tags: TAGS,
      params: createCommitParams,
      responses: { 201: CommitDetailSchema },
      bodyLimit: commitBodyLimit,
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      if (p.actions === undefined) throw grapeError('actions is missing');
      if (!p.branch) throw grapeError('branch is empty');
      const actions = parseActions(p.actions);
      const db = c.var.db;
      const startBranch = p.start_branch ?? p.branch;
      const startsElsewhere = p.start_sha !== undefined || (p.start_branch !== undefined && p.start_branch !== p.branch);
      const forced = p.force && startsElsewhere;
      // The paths whose last commit an action checks (`last_commit_id`), read from the start commit.
      const checked = [...new Set(actions.flatMap((a) => (a.action !== 'create' && a.action !== 'chmod' && a.last_commit_id ? [a.action === 'move' ? a.previous_path : a.file_path] : [])))];
      // One round trip for everything the commit is decided on: the project and the caller's level,
      // whether the repository is empty, the branch and the start branch, the protected branches the
      // push check reads, the start commit (start_branch, or start_sha resolved as git resolves a
      // ref) with its files and the last commits of the checked paths, the commits a forced push
      // brings, and what the push hooks read (the open merge requests from the branch).
      let hookReads: ReturnType<typeof pushReads> | undefined;
      const found = await readableRepoWith(c, caller, p.id, (projectId) => {
        const start = p.start_sha !== undefined ? refSha(projectId, p.start_sha) : branchSha(projectId, startBranch);
        hookReads = pushReads(db, projectId, p.branch);
        return [
          db.select({ one: sql`1` }).from(repoBranches).where(sql`${repoBranches.projectId} = ${projectId}`).limit(1),
          db
            .select()
            .from(repoBranches)
            .where(sql`${repoBranches.projectId} = ${projectId} AND ${repoBranches.name} IN (${p.branch}, ${startBranch})`),
          ...projectProtectedBranchReads(db, projectId),
          commitAt(db, projectId, start),
          manifestRows(db, projectId, start),
          ...checked.map((path) => lastCommitForPathAt(db, projectId, start, path)),
          ...hookReads.list,
          ...(forced ? [commitsBetweenRows(db, projectId, branchSha(projectId, p.branch), start)] : []),
        ] as const;
      });
      const [any, branches, pbRows, pbLevels, [startCommit], startFiles] = found.reads;
      const rest = found.reads.slice(6) as unknown[];
      const lastCommits = new Map(checked.map((path, i) => [path, (rest[i] as { sha: string | null }[])[0]?.sha ?? null]));
      const prefetched = hookReads!.take(rest.slice(checked.length, checked.length + hookReads!.list.length));
      const brought = (forced ? rest[rest.length - 1] : []) as CommitRow[];
      const pid = found.project.id;
      if (p.start_project !== undefined && p.start_project !== String(pid) && p.start_project !== found.fullPath)
        throw grapeError('start_project is not supported: commits start from the same project', 400);
      const empty = any.length === 0;
      // commits.rb: authorize_push_to_branch!(params[:branch]), over the protected branches read above.
      const allowed = await withReadMemo(c, async () => {
        primeProtectedBranches(c, pbRows, pbLevels, [{ projectId: pid, name: p.branch }]);
        return canPushToBranch(c, caller, found.level, pid, p.branch, { emptyRepo: empty, archived: found.project.archived });
      });
      if (!allowed) throw forbidden('You are not allowed to push into this branch');
      if (!isValidBranchName(p.branch)) throw apiMessage(400, `Branch name is invalid`);
      // Git stores any message, but GitLab holds text to MAX_TEXT_SIZE_LIMIT; author fields are `string(255)`.
      const textErrors = checkText({}, { commit_message: p.commit_message, author_name: p.author_name, author_email: p.author_email }, COMMIT_TEXT);
      if (Object.keys(textErrors).length) throw validationFailed(textErrors);

      const target = branches.find((b) => b.name === p.branch);
      // attrs[:start_branch] ||= attrs[:branch_name] unless attrs[:start_sha]
      let parent: string | null = null;
      if (p.start_sha !== undefined) {
        // The ref must name a commit whose id starts with it (a branch of that name may not).
        if (!startCommit || !startCommit.sha.startsWith(p.start_sha.toLowerCase())) throw apiMessage(400, `Invalid start sha: ${p.start_sha}`);
        parent = startCommit.sha;
      } else {
        const start = branches.find((b) => b.name === startBranch);
        // Files::BaseService#validate_on_branch!: a non-empty repository needs an existing start branch.
        if (!start && !empty) throw apiMessage(400, 'You can only create or edit files when you are on a branch');
        parent = start?.commitSha ?? null;
      }
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
          // What the first batch read of the start commit (a root commit has no parent to read).
          ...(parent === null ? { generations: [] } : startCommit?.sha === parent ? { parentRead: { files: rememberManifest(db, pid, parent, startFiles), lastCommits }, generations: [startCommit.generation] } : {}),
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
      const between = oldSha && parent && parent !== oldSha ? brought.sort(newestFirst).reverse() : [];
      const refresh = await pushStatements(
        c,
        { projectId: pid, branch: p.branch, oldSha, commits: [...between, written.commit], manifest: written.files, from: parent, user, at: Date.now(), blobs: written.blobs },
        prefetched,
      );
      // The commit as stored is read back in the write's own batch.
      const stored = await storeCommit(c, written, [...protect, ...refresh], [db.select().from(repoCommits).where(and(eq(repoCommits.projectId, pid), eq(repoCommits.sha, written.commit.sha))).limit(1)]);
      // Lost a race with another push to the same branch: Gitaly's answer for a moved ref.
      if (!stored) throw apiMessage(400, `Could not update refs/heads/${p.branch}. Please refresh and try again.`);
      const commit = stored[0][0] ?? written.commit;
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
      responses: { 200: CommitList },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const f: HistoryFilter = { ref: p.ref_name, all: p.all, firstParent: p.first_parent, since: p.since, until: p.until, path: p.path };
      // The author filter compares case-insensitively beyond ASCII (String#toLowerCase, as Ruby's downcase), which SQLite's
      // lower() does not: with it the whole history is read and filtered here, still in the one round trip.
      const paged = p.author === undefined;
      const found = await readableRepoWith(c, caller, p.id, (projectId) => [historyPage(db, projectId, f, paged ? req.perPage : -1, paged ? req.offset : 0), historyCount(db, projectId, f)] as const);
      let [page, [{ n: total }]] = found.reads;
      if (!paged) {
        const a = p.author!.toLowerCase();
        const rows = page.filter((r) => r.authorName.toLowerCase().includes(a) || r.authorEmail.toLowerCase().includes(a));
        total = rows.length;
        page = rows.slice(req.offset, req.offset + req.perPage);
      }
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), Number(total), page.length);
      return c.json(page.map((r) => (p.with_stats ? commitDetail(r, { ...x(c, found), stats: true }) : commitEntity(r, x(c, found)))));
    },
  );

  const commitRef = params({ id: g.string(), sha: g.string(), stats: g.bool().default(true) });
  r.route({ method: 'GET', path: '/projects/:id/repository/commits/:sha', summary: 'Get a single commit', tags: TAGS, params: commitRef, responses: { 200: CommitDetailSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    // The commit is resolved with the project's lookup, in one round trip.
    const found = await readableRepoWith(c, caller, p.id, (projectId) => [commitAtRef(db, projectId, p.sha)] as const);
    const [[commit]] = found.reads;
    if (!commit) throw notFound('Commit');
    return c.json(commitDetail(commit, { ...x(c, found), stats: p.stats }));
  });

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha/diff',
      summary: 'Get the diff of a commit',
      tags: TAGS,
      params: params({ id: g.string(), sha: g.string(), unidiff: g.bool().optional(), ...paginationParams }),
      responses: { 200: z.array(DiffSchema) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await readableRepoWith(c, caller, p.id, (projectId) => [commitAtRef(db, projectId, p.sha)] as const);
      const [[commit]] = found.reads;
      if (!commit) throw notFound('Commit');
      // `commit.diffs(expanded: true)`: the collection limits apply (silently), nothing collapses.
      const { diffs } = limitDiffs(await diffsBetween(c, found.project.id, commit.parentShas[0] ?? null, commit.sha), await diffLimitsOf(c), { expanded: true });
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
      responses: { 200: CompareSchema },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      // Both refs are resolved with the project's lookup, in one round trip.
      const found = await readableRepoWith(c, caller, p.id, (projectId) => [commitAtRef(db, projectId, p.from), commitAtRef(db, projectId, p.to)] as const);
      const pid = found.project.id;
      const [[from], [to]] = found.reads;
      if (!from || !to) throw notFound('Ref');
      // straight=false compares from the merge base (git diff from...to); straight=true from `from` itself.
      // The second round trip reads the merge base, the commits between and both file lists; the base's list hangs
      // off the merge base's statement, and what this isolate already knows (sha-cache.ts) is not read again.
      const knownBase = p.straight ? from.sha : cachedMergeBase(db, pid, from.sha, to.sha);
      const baseSql = knownBase !== undefined ? sql`${knownBase}` : sql`(${mergeBaseQuery(db, pid, from.sha, to.sha)})`;
      const baseFiles = knownBase !== undefined ? cachedManifest(db, pid, knownBase) : undefined;
      const toFiles = cachedManifest(db, pid, to.sha);
      const [baseRow, between, baseRows, toRows] = await batchReads(db, [
        knownBase === undefined ? mergeBaseQuery(db, pid, from.sha, to.sha) : undefined,
        commitsBetweenRows(db, pid, from.sha, to.sha),
        baseFiles ? undefined : manifestRows(db, pid, baseSql),
        toFiles ? undefined : manifestRows(db, pid, to.sha),
      ]);
      const base = knownBase !== undefined ? knownBase : rememberMergeBase(db, pid, from.sha, to.sha, baseRow?.[0]?.sha ?? null);
      const a = baseFiles ?? (base ? rememberManifest(db, pid, base, baseRows ?? []) : new Map());
      const b = toFiles ?? rememberManifest(db, pid, to.sha, toRows ?? []);
      const commits = between.sort(newestFirst).reverse();
      // Entities::Compare: `compare.diffs.diffs` (not expanded), `compare_timeout` is its overflow.
      const { diffs, overflow } = limitDiffs(await diffsOfManifests(c, pid, a, b), await diffLimitsOf(c), { expanded: false });
      return c.json(compareEntity(commits, diffs, { ...x(c, found), fromSha: from.sha, toSha: to.sha, overflow }));
    },
  );
}
