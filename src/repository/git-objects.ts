/**
 * Git object ids, computed exactly as git does (`git hash-object`, `git mktree`, `git commit-tree`):
 * SHA-1 over "<type> <byte length>\0<body>". Pure functions, no storage.
 */
import { createHash } from 'node:crypto';

const encoder = new TextEncoder();

function hashObject(type: 'blob' | 'tree' | 'commit' | 'tag', body: Uint8Array): string {
  const h = createHash('sha1');
  h.update(encoder.encode(`${type} ${body.byteLength}\0`));
  h.update(body);
  return h.digest('hex');
}

export const blobId = (content: Uint8Array) => hashObject('blob', content);

export interface ManifestEntry {
  blobSha: string;
  /** '100644' or '100755'. */
  mode: string;
}

/**
 * The root tree id of a flat manifest (path -> blob). Trees are built per directory; entries are
 * ordered as git orders them: by name bytes, a directory comparing as if its name ended in "/".
 */
export function treeId(files: Map<string, ManifestEntry>): string {
  return treeObjects(files).id;
}

/**
 * The root tree id and every tree object's body by id (what a pack of the commit carries): the same
 * serialisation `treeId` hashes.
 */
export function treeObjects(files: Map<string, ManifestEntry>): { id: string; trees: Map<string, Uint8Array> } {
  const trees = new Map<string, Uint8Array>();
  interface Dir {
    files: Map<string, ManifestEntry>;
    dirs: Map<string, Dir>;
  }
  const root: Dir = { files: new Map(), dirs: new Map() };
  for (const [path, entry] of files) {
    const parts = path.split('/');
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) dir.dirs.set(part, (next = { files: new Map(), dirs: new Map() }));
      dir = next;
    }
    dir.files.set(parts[parts.length - 1], entry);
  }
  const hashDir = (dir: Dir): string => {
    const entries: { sortKey: Uint8Array; header: Uint8Array; sha: string }[] = [];
    for (const [name, e] of dir.files) entries.push({ sortKey: encoder.encode(name), header: encoder.encode(`${e.mode} ${name}\0`), sha: e.blobSha });
    for (const [name, sub] of dir.dirs) entries.push({ sortKey: encoder.encode(`${name}/`), header: encoder.encode(`40000 ${name}\0`), sha: hashDir(sub) });
    entries.sort((a, b) => compareBytes(a.sortKey, b.sortKey));
    const chunks: Uint8Array[] = [];
    for (const e of entries) chunks.push(e.header, hexToBytes(e.sha));
    const body = concat(chunks);
    const id = hashObject('tree', body);
    trees.set(id, body);
    return id;
  };
  return { id: hashDir(root), trees };
}

export interface Signature {
  name: string;
  email: string;
  /** Milliseconds; git records whole seconds. */
  at: number;
}

/** The commit object id: tree, parents, author, committer (UTC, "+0000"), blank line, message. */
export function commitId(tree: string, parents: string[], author: Signature, committer: Signature, message: string): string {
  return hashObject('commit', commitBody(tree, parents, author, committer, message));
}

/** The commit object's body, as `commitId` hashes it. */
export function commitBody(tree: string, parents: string[], author: Signature, committer: Signature, message: string): Uint8Array {
  const sig = (s: Signature) => `${s.name} <${s.email}> ${Math.floor(s.at / 1000)} +0000`;
  const lines = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${sig(author)}`, `committer ${sig(committer)}`];
  return encoder.encode(`${lines.join('\n')}\n\n${message}`);
}

/**
 * An annotated tag object (`git tag -a`): the object it names, its type, the tag's name, the tagger
 * and the message, which git ends with a newline.
 */
export function tagBody(object: string, name: string, tagger: Signature, message: string): Uint8Array {
  const text = message.endsWith('\n') ? message : `${message}\n`;
  return encoder.encode(`object ${object}\ntype commit\ntag ${name}\ntagger ${tagger.name} <${tagger.email}> ${Math.floor(tagger.at / 1000)} +0000\n\n${text}`);
}

export const tagId = (object: string, name: string, tagger: Signature, message: string) => hashObject('tag', tagBody(object, name, tagger, message));

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
