/**
 * Reading an uploaded export archive from the blob store: members streamed through the tar reader
 * with the instance's limits, ndjson lines parsed one at a time. Errors that end an import carry
 * GitLab's `import_error` wording (ImportError); nothing from the archive goes into them.
 */
import type { BlobStore } from '../platform/blobs';
import { ArchiveError, memberLines, memberText, readTarGz, type TarMember } from '../platform/tar-read';

/** An import that cannot go on: `message` becomes the project's `import_error`. */
export class ImportError extends Error {}

const MB = 1024 * 1024;
/** One ndjson line (one issue with its notes, one merge request with its diffs) at most. */
export const MAX_LINE_BYTES = 16 * MB;
/** A single-document member (VERSION, project.json) at most. */
export const MAX_DOCUMENT_BYTES = 8 * MB;

/** The archive's members in order, refusing what tar-read.ts refuses; `maxDecompressedMb` 0 = unlimited. */
export async function* archiveMembers(blobs: BlobStore, key: string, maxDecompressedMb: number): AsyncGenerator<TarMember> {
  const blob = await blobs.get(key);
  if (!blob) throw new ImportError('The uploaded archive is no longer available');
  try {
    yield* readTarGz(blob.body, { maxDecompressedBytes: maxDecompressedMb > 0 ? maxDecompressedMb * MB : 0 });
  } catch (err) {
    if (err instanceof ArchiveError) throw new ImportError(err.message);
    throw err;
  }
}

export const documentText = (m: TarMember) => memberText(m.body, MAX_DOCUMENT_BYTES).catch((err) => {
  throw err instanceof ArchiveError ? new ImportError(`${m.name} is too large`) : err;
});

/** A line of a relation: the parsed object, or why it could not be read. */
export type RelationLine = { number: number; row: Record<string, unknown> } | { number: number; error: string; exceptionClass: string };

export async function* relationLines(m: TarMember): AsyncGenerator<RelationLine> {
  for await (const l of memberLines(m.body, MAX_LINE_BYTES)) {
    if (l.tooLong) {
      yield { number: l.number, error: 'Line exceeds the maximum size', exceptionClass: 'Gitlab::ImportExport::Error' };
      continue;
    }
    let row: unknown;
    try {
      row = JSON.parse(l.line);
    } catch {
      yield { number: l.number, error: 'Malformed JSON', exceptionClass: 'JSON::ParserError' };
      continue;
    }
    if (!row || typeof row !== 'object' || Array.isArray(row)) yield { number: l.number, error: 'Relation line is not an object', exceptionClass: 'Gitlab::ImportExport::Error' };
    else yield { number: l.number, row: row as Record<string, unknown> };
  }
}

/** version_checker.rb: the first line of VERSION must equal 0.2.4 as a version. */
export const IMPORT_VERSION = '0.2.4';
export function checkVersion(text: string): void {
  const first = text.split('\n')[0].trim();
  if (first.length > 32 || !/^\d+(\.\d+)*$/.test(first)) throw new ImportError('Incorrect VERSION format');
  const norm = (v: string) => v.split('.').map(Number).join('.').replace(/(\.0)+$/, '');
  if (norm(first) !== norm(IMPORT_VERSION)) throw new ImportError(`Import version mismatch: Required ${IMPORT_VERSION} but was ${first}`);
}
