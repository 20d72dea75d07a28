/**
 * Repository archives as `git archive` writes them (Gitaly GetArchive behind Workhorse's
 * sendarchive): every file of a commit under `<prefix>/`, directories first as tree order meets
 * them, tar (with the commit id in a pax global header, as git does), tar.gz, or zip (fflate's
 * streaming deflate). The archive is streamed: each blob is read from the blob store while the
 * previous one is being sent, so no archive is held whole.
 */
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { BlobStore } from '../platform/blobs';
import { TarWriter } from '../platform/tar-write';
import { blobKey, type Manifest } from './repository-store';

export type ArchiveKind = 'tar' | 'tar.gz' | 'zip';

/**
 * Gitlab::Git::Repository#archive_file_path: the extension a requested format is served as
 * (everything unknown falls back to tar.gz); the bzip2 names map to `tar.bz2`, which is not written here.
 */
export function archiveExtension(format: string | undefined): ArchiveKind | 'tar.bz2' {
  switch (format) {
    case 'tar.bz2':
    case 'tbz':
    case 'tbz2':
    case 'tb2':
    case 'bz2':
      return 'tar.bz2';
    case 'tar':
      return 'tar';
    case 'zip':
      return 'zip';
    default:
      return 'tar.gz';
  }
}

/** Gitlab::Git::Repository#archive_prefix with `append_sha: true` (the API): `<project>-<ref>-<sha>[-<path>]`. */
export function archivePrefix(projectPath: string, ref: string, sha: string, path: string | undefined): string {
  const segments = [projectPath, ref.replace(/\//g, '-'), sha];
  // GitLab turns the slashes into dashes before trimming slashes, so the trim never removes anything.
  if (path) segments.push(path.replace(/\//g, '-'));
  return segments.join('-');
}

/** The files an archive of `path` holds (`git archive <sha> -- <path>`), minus `exclude_paths`, in tree order. */
export function archiveFiles(manifest: Manifest, path: string | undefined, exclude: string[]): [string, { blobSha: string; mode: string; size: number }][] {
  const within = (file: string, dir: string) => file === dir || file.startsWith(`${dir.replace(/\/+$/, '')}/`);
  const base = path?.replace(/^\/+|\/+$/g, '');
  // Byte order of whole paths is git's tree order (a directory sorts as its name followed by "/").
  return [...manifest]
    .filter(([file]) => (!base || within(file, base)) && !exclude.some((x) => x && within(file, x.replace(/^\/+/, ''))))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The directories of a sorted file list, each listed before its first file (`a/`, `a/b/`). */
function* withDirectories(files: [string, { blobSha: string; mode: string; size: number }][]) {
  const seen = new Set<string>();
  for (const [path, entry] of files) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = `${parts.slice(0, i).join('/')}/`;
      if (!seen.has(dir)) {
        seen.add(dir);
        yield { dir };
      }
    }
    yield { path, entry };
  }
}

export interface ArchiveInput {
  blobs: BlobStore;
  projectId: number;
  sha: string;
  prefix: string;
  /** The commit's date: every member's modification time, as git archive sets it. */
  mtime: number;
  files: [string, { blobSha: string; mode: string; size: number }][];
}

/** A blob's bytes as they come from the store (an empty file has no object to read). */
async function* blobChunks(blobs: BlobStore, projectId: number, sha: string, size: number): AsyncGenerator<Uint8Array> {
  if (!size) return;
  const obj = await blobs.get(blobKey(projectId, sha));
  if (!obj) throw new Error(`blob ${sha} is missing from the store`);
  const reader = obj.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value as Uint8Array;
  }
}

/** git archive's tar: umask 002, so files 0664 (0775 executable), directories 0775. */
export function tarArchive(a: ArchiveInput, gzip: boolean): ReadableStream<Uint8Array> {
  const { readable, writable } = gzip ? new CompressionStream('gzip') : new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const tar = new TarWriter((chunk) => writer.write(chunk as Uint8Array<ArrayBuffer>));
  const write = async () => {
    await tar.paxGlobal({ comment: a.sha }, a.mtime);
    await tar.directory({ name: `${a.prefix}/`, mtime: a.mtime, mode: 0o775 });
    for (const item of withDirectories(a.files)) {
      if ('dir' in item) await tar.directory({ name: `${a.prefix}/${item.dir}`, mtime: a.mtime, mode: 0o775 });
      else await tar.stream({ name: `${a.prefix}/${item.path}`, mtime: a.mtime, mode: item.entry.mode === '100755' ? 0o775 : 0o664 }, item.entry.size, blobChunks(a.blobs, a.projectId, item.entry.blobSha, item.entry.size));
    }
    await tar.end();
    await writer.close();
  };
  write().catch((err) => writer.abort(err).catch(() => undefined));
  return readable as ReadableStream<Uint8Array>;
}

/** git archive's zip: deflated members with Unix modes in the external attributes. */
export function zipArchive(a: ArchiveInput): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let last: Promise<void> = Promise.resolve();
  let failed: unknown;
  const zip = new Zip((err, chunk, final) => {
    if (err) failed = err;
    else if (chunk.byteLength) last = writer.write(chunk);
    if (final && !err) last = last.then(() => writer.close());
  });
  const unix = (mode: number) => ({ os: 3, attrs: mode << 16 });
  const write = async () => {
    const directory = (name: string) => {
      const d = new ZipPassThrough(name);
      Object.assign(d, { mtime: a.mtime, ...unix(0o40775) });
      zip.add(d);
      d.push(new Uint8Array(0), true);
    };
    directory(`${a.prefix}/`);
    for (const item of withDirectories(a.files)) {
      if ('dir' in item) directory(`${a.prefix}/${item.dir}`);
      else {
        const f = new ZipDeflate(`${a.prefix}/${item.path}`, { level: 6 });
        Object.assign(f, { mtime: a.mtime, ...unix(item.entry.mode === '100755' ? 0o100775 : 0o100664) });
        zip.add(f);
        for await (const piece of blobChunks(a.blobs, a.projectId, item.entry.blobSha, item.entry.size)) {
          f.push(piece);
          // Wait for what deflate produced to be taken before reading more of the blob.
          await last;
        }
        f.push(new Uint8Array(0), true);
      }
      if (failed) throw failed;
      await last;
    }
    zip.end();
    await last;
    if (failed) throw failed;
  };
  write().catch((err) => writer.abort(err).catch(() => undefined));
  return readable;
}
