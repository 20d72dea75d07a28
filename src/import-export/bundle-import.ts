/**
 * A bundle's history written into this server's repository model (repository/repository-store.ts):
 * commits, parent edges, each commit's file list (symlinks as blobs of mode 120000), branches, tags
 * (refs/tags: lightweight ones name a commit, annotated ones a tag object, kept as repo_tags rows), and
 * the blobs in the blob store. Ids never change on the way in: a commit whose object is not the one
 * this server would write for its fields (a time zone other than UTC, gpgsig, mergetag, encoding) keeps
 * its exact bytes beside its blobs, and a submodule, which the model cannot hold, refuses the whole
 * bundle before anything is written (the import job records it as a failed relation). Rows are written with
 * ON CONFLICT DO NOTHING: a job that runs again after dying half-way writes nothing twice.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { repoBranches, repoCommitFiles, repoCommitParents, repoCommits, repoTags } from '../db/schema';
import type { BlobStore } from '../platform/blobs';
import { commitBody, type ManifestEntry, tagBody } from '../repository/git-objects';
import { blobKey } from '../repository/repository-store';
import { decoder, diffManifests, isBinary, lineStats } from '../repository/diffs';
import { BundleError, type Bundle, objectId } from './bundle-read';

interface ParsedCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: { name: string; email: string; at: number };
  committer: { name: string; email: string; at: number };
  message: string;
  /** The object itself when the fields do not rewrite it byte for byte (a time zone, gpgsig, mergetag, encoding). */
  raw: Uint8Array | null;
}

function parseCommit(sha: string, body: Uint8Array): ParsedCommit {
  const text = decoder.decode(body);
  const split = text.indexOf('\n\n');
  if (split < 0) throw new BundleError('Malformed commit');
  const headers = text.slice(0, split).split('\n');
  const message = text.slice(split + 2);
  // Any offset git writes: the instant is the same, the offset's bytes live on in `raw`.
  const sig = (line: string | undefined, key: string) => {
    const m = line ? new RegExp(`^${key} (.*) <([^>]*)> (\\d+) [+-]\\d{4}$`).exec(line) : null;
    if (!m) throw new BundleError(`Commit ${sha.slice(0, 8)} has a malformed ${key} line`);
    return { name: m[1], email: m[2], at: Number(m[3]) * 1000 };
  };
  const tree = /^tree ([0-9a-f]{40})$/.exec(headers[0] ?? '')?.[1];
  if (!tree) throw new BundleError('Malformed commit');
  let i = 1;
  const parents: string[] = [];
  for (let m; (m = /^parent ([0-9a-f]{40})$/.exec(headers[i] ?? '')); i++) parents.push(m[1]);
  const author = sig(headers[i++], 'author');
  const committer = sig(headers[i++], 'committer');
  // Headers after the committer (gpgsig and its continuation lines, mergetag, encoding) are kept
  // only in `raw`: the API shows the fields, the bundle written on export carries the exact object.
  const same = Buffer.compare(Buffer.from(commitBody(tree, parents, author, committer, message)), Buffer.from(body)) === 0;
  return { sha, tree, parents, author, committer, message, raw: same ? null : body };
}

interface ParsedTag {
  name: string;
  /** The tag object's id (annotated) or the commit's (lightweight). */
  target: string;
  commit: string;
  tagger: { name: string; email: string; at: number } | null;
  message: string | null;
  /** The tag object itself when its fields do not rewrite it byte for byte (a time zone, a signature). */
  raw: Uint8Array | null;
}

/**
 * The bundle's refs/tags as rows of the repository model. A lightweight tag names a commit; an
 * annotated one a tag object naming a commit. A tag of a tag, of a tree or of a blob has no place in
 * repo_tags (the tags API dereferences to a commit) and is left out, as is a ref git peels (`^{}`).
 */
function parseTags(bundle: Bundle): ParsedTag[] {
  const out: ParsedTag[] = [];
  for (const r of bundle.refs) {
    if (!r.name.startsWith('refs/tags/') || r.name.endsWith('^{}')) continue;
    const name = r.name.slice('refs/tags/'.length);
    // git check-ref-format would refuse it: a hostile bundle's ref, not a tag anyone pushed.
    if (!name || name.length > 255 || /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|^[./]|[./]$|\.lock$/.test(name)) continue;
    const o = bundle.objects.get(r.sha);
    if (!o) throw new BundleError(`Tag ${name.slice(0, 64)} names an object missing from the bundle`);
    if (o.type === 'commit') {
      out.push({ name, target: r.sha, commit: r.sha, tagger: null, message: null, raw: null });
      continue;
    }
    if (o.type !== 'tag') continue;
    const text = decoder.decode(o.body);
    const split = text.indexOf('\n\n');
    const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
    const object = /^object ([0-9a-f]{40})$/.exec(headers[0] ?? '')?.[1];
    if (!object || headers[1] !== 'type commit') continue;
    const t = headers.map((h) => /^tagger (.*) <([^>]*)> (\d+) [+-]\d{4}$/.exec(h)).find(Boolean);
    const tagger = t ? { name: t[1], email: t[2], at: Number(t[3]) * 1000 } : null;
    // git ends a tag's message with a newline; the tags API shows it without (tagBody adds it back).
    const message = split < 0 ? '' : text.slice(split + 2).replace(/\n$/, '');
    const same = tagger !== null && objectId('tag', tagBody(object, name, tagger, message)) === r.sha;
    out.push({ name, target: r.sha, commit: object, tagger, message, raw: same ? null : o.body });
  }
  return out;
}

/**
 * Where the exact object of a commit the repository model cannot rewrite is kept: the blob store,
 * under the commit's own id (no blob has a commit's id), read back by bundle-write.ts on export.
 */
export const rawCommitKey = blobKey;

/** The flat file list of a tree: path -> blob and mode. */
function manifestOf(bundle: Bundle, tree: string, memo: Map<string, Map<string, ManifestEntry>>): Map<string, ManifestEntry> {
  const hit = memo.get(tree);
  if (hit) return hit;
  const obj = bundle.objects.get(tree);
  if (!obj || obj.type !== 'tree') throw new BundleError(`Tree ${tree.slice(0, 8)} is missing from the bundle`);
  const out = new Map<string, ManifestEntry>();
  const b = obj.body;
  let at = 0;
  while (at < b.byteLength) {
    const space = b.indexOf(32, at);
    const nul = b.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > b.byteLength) throw new BundleError('Malformed tree');
    const mode = decoder.decode(b.subarray(at, space));
    const name = decoder.decode(b.subarray(space + 1, nul));
    const sha = Buffer.from(b.subarray(nul + 1, nul + 21)).toString('hex');
    at = nul + 21;
    if (!name || name === '.' || name === '..' || name.includes('/')) throw new BundleError('Malformed tree entry');
    if (mode === '40000') for (const [p, e] of manifestOf(bundle, sha, memo)) out.set(`${name}/${p}`, e);
    // A symlink is a blob holding its target, as the files API shows it; a submodule names a
    // commit of another repository, which this model has no place for.
    else if (mode === '100644' || mode === '100755' || mode === '120000') out.set(name, { blobSha: sha, mode });
    else if (mode === '160000') throw new BundleError('The repository holds a submodule (mode 160000), which this server cannot hold');
    else throw new BundleError(`Tree ${tree.slice(0, 8)} has an entry of unknown mode ${mode.slice(0, 6)}`);
  }
  memo.set(tree, out);
  return out;
}

/**
 * Writes the bundle's branches and history into project `projectId` (whose repository is empty)
 * and answers the branch HEAD names (the default branch), or null when the bundle has no branch.
 */
export async function importBundle(db: Db, blobs: BlobStore, projectId: number, bundle: Bundle, now = Date.now()): Promise<string | null> {
  let step = await importBundleStep(db, blobs, projectId, bundle, { now });
  while (step.next !== null) step = await importBundleStep(db, blobs, projectId, bundle, { now, from: step.next });
  return step.head;
}

/**
 * One step of `importBundle`: the commits from position `from` (parents first) on, until `maxPuts`
 * blobs were stored (each a subrequest on Workers, which allow 1,000 an invocation); answers where
 * the next step starts (null once the branches are written) and the HEAD branch.
 */
export async function importBundleStep(
  db: Db,
  blobs: BlobStore,
  projectId: number,
  bundle: Bundle,
  opts: { now?: number; from?: number; maxPuts?: number } = {},
): Promise<{ head: string | null; next: number | null }> {
  const now = opts.now ?? Date.now();
  const from = opts.from ?? 0;
  const maxPuts = opts.maxPuts ?? Infinity;
  const branches = bundle.refs.filter((r) => r.name.startsWith('refs/heads/')).map((r) => ({ name: r.name.slice('refs/heads/'.length), sha: r.sha }));
  if (!branches.length) return { head: null, next: null };
  const headRef = bundle.refs.find((r) => r.name === 'HEAD');
  const head = branches.find((b) => b.sha === headRef?.sha)?.name ?? branches[0].name;
  const tags = parseTags(bundle);
  const commits = new Map<string, ParsedCommit>();
  for (const [sha, o] of bundle.objects) if (o.type === 'commit') commits.set(sha, parseCommit(sha, o.body));
  // Parents before children, so each commit's generation is known when it is written.
  const order: ParsedCommit[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (sha: string) => {
    const stack: [string, boolean][] = [[sha, false]];
    while (stack.length) {
      const [s, expanded] = stack.pop()!;
      if (state.get(s) === 'done') continue;
      const c = commits.get(s);
      if (!c) throw new BundleError(`Commit ${s.slice(0, 8)} is missing from the bundle`);
      if (expanded) {
        state.set(s, 'done');
        order.push(c);
        continue;
      }
      if (state.get(s) === 'visiting') throw new BundleError('Commit cycle');
      state.set(s, 'visiting');
      stack.push([s, true]);
      for (const p of c.parents) if (state.get(p) !== 'done') stack.push([p, false]);
    }
  };
  for (const b of branches) visit(b.sha);
  // A commit only a tag reaches is part of the history too (git clone fetches it with the tag).
  for (const t of tags) visit(t.commit);

  const memo = new Map<string, Map<string, ManifestEntry>>();
  // Every tree read first: a submodule or a broken tree refuses the bundle before a blob is stored.
  for (const c of order) manifestOf(bundle, c.tree, memo);
  const generation = new Map<string, number>();
  const written = new Set<string>();
  const statements: BatchItem<'sqlite'>[] = [];
  const body = (sha: string) => {
    const o = bundle.objects.get(sha);
    if (!o || o.type !== 'blob') throw new BundleError(`Blob ${sha.slice(0, 8)} is missing from the bundle`);
    return o.body;
  };
  // Generations of every commit, and the blobs earlier steps stored (not stored again).
  for (const c of order) generation.set(c.sha, 1 + Math.max(0, ...c.parents.map((p) => generation.get(p) ?? 0)));
  for (const c of order.slice(0, from)) for (const e of manifestOf(bundle, c.tree, memo).values()) written.add(e.blobSha);
  let puts = 0;
  let next: number | null = null;
  const pool = putPool(blobs);
  for (let k = from; k < order.length; k++) {
    if (puts >= maxPuts) {
      next = k;
      break;
    }
    const c = order[k];
    const files = manifestOf(bundle, c.tree, memo);
    const base = c.parents[0] ? manifestOf(bundle, commits.get(c.parents[0])!.tree, memo) : new Map<string, ManifestEntry>();
    // Line counts as the commits API reports them (commit-writer.ts): text files against the first parent.
    let additions = 0;
    let deletions = 0;
    for (const ch of diffManifests(base as never, files as never)) {
      if (ch.oldBlob === ch.newBlob) continue;
      const before = ch.oldBlob ? body(ch.oldBlob) : null;
      const after = ch.newBlob ? body(ch.newBlob) : null;
      if ((before && isBinary(before)) || (after && isBinary(after))) continue;
      const s = lineStats(before ? decoder.decode(before) : '', after ? decoder.decode(after) : '');
      additions += s.additions;
      deletions += s.deletions;
    }
    statements.push(
      db
        .insert(repoCommits)
        .values({
          projectId,
          sha: c.sha,
          treeSha: c.tree,
          parentShas: c.parents,
          generation: generation.get(c.sha)!,
          message: c.message,
          authorName: c.author.name,
          authorEmail: c.author.email,
          authoredAt: c.author.at,
          committerName: c.committer.name,
          committerEmail: c.committer.email,
          committedAt: c.committer.at,
          userId: null,
          additions,
          deletions,
        })
        .onConflictDoNothing(),
    );
    c.parents.forEach((p, i) => statements.push(db.insert(repoCommitParents).values({ projectId, sha: c.sha, parentSha: p, position: i }).onConflictDoNothing()));
    const rows = [...files].map(([path, e]) => ({ projectId, commitSha: c.sha, path, blobSha: e.blobSha, mode: e.mode, size: body(e.blobSha).byteLength }));
    // 6 columns a row: 15 rows stay under D1's 100 bound parameters.
    for (let i = 0; i < rows.length; i += 15) statements.push(db.insert(repoCommitFiles).values(rows.slice(i, i + 15)).onConflictDoNothing());
    if (c.raw) await pool.put(rawCommitKey(projectId, c.sha), c.raw);
    if (c.raw) puts++;
    for (const e of files.values()) {
      if (written.has(e.blobSha)) continue;
      written.add(e.blobSha);
      await pool.put(blobKey(projectId, e.blobSha), body(e.blobSha));
      puts++;
    }
  }
  // Tag objects the fields cannot rewrite, kept under their own id (as commits are) for the export's bundle.
  if (next === null) for (const t of tags) if (t.raw) await pool.put(rawCommitKey(projectId, t.target), t.raw);
  await pool.drain();
  // Branches and tags last: a ref appears only once its whole history is written.
  if (next === null) {
    for (const b of branches) statements.push(db.insert(repoBranches).values({ projectId, name: b.name, commitSha: b.sha, createdAt: now, updatedAt: now }).onConflictDoNothing());
    for (const t of tags)
      statements.push(
        db
          .insert(repoTags)
          .values({
            projectId,
            name: t.name,
            targetSha: t.target,
            commitSha: t.commit,
            message: t.message,
            taggerName: t.tagger?.name ?? null,
            taggerEmail: t.tagger?.email ?? null,
            taggedAt: t.tagger?.at ?? null,
            userId: null,
            createdAt: now,
          })
          .onConflictDoNothing(),
      );
  }
  // Blobs first, rows after: a row never names a blob the store does not hold.
  for (let i = 0; i < statements.length; i += 200) await db.batch(statements.slice(i, i + 200) as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  return { head, next };
}

/** Blob puts in flight at once: each waits on a disk sync (Node) or an R2 round trip (Workers), so several overlap. */
const PUTS_IN_FLIGHT = 8;

/** Puts with at most PUTS_IN_FLIGHT pending; `drain` waits for all of them and throws the first failure. */
function putPool(blobs: BlobStore) {
  const pending = new Set<Promise<void>>();
  let failed: unknown;
  return {
    async put(key: string, body: Uint8Array) {
      while (pending.size >= PUTS_IN_FLIGHT) await Promise.race(pending);
      if (failed) throw failed;
      const p: Promise<void> = blobs.put(key, body).then(
        () => void pending.delete(p),
        (err) => {
          pending.delete(p);
          failed ??= err;
        },
      );
      pending.add(p);
    },
    async drain() {
      await Promise.all(pending);
      if (failed) throw failed;
    },
  };
}
