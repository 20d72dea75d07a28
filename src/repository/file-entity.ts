/**
 * A repository file (lib/api/files.rb `blob_data` plus `content`) and Entities::TreeObject
 * (lib/api/entities/tree_object.rb), in GitLab's field order. Pure.
 */
import { z } from 'zod';
import { int, obj } from '../platform/response-schemas';
import type { FileEntry } from './repository-store';

/** files.rb builds this hash itself; GitLab has no entity of that name. */
export const RepositoryFileSchema = obj({
  file_name: z.string(),
  file_path: z.string(),
  size: int,
  encoding: z.literal('base64'),
  content_sha256: z.string(),
  ref: z.string(),
  blob_id: z.string(),
  commit_id: z.string(),
  /** Null only if no commit of the ref's history changed the path (not expected for a file it holds). */
  last_commit_id: z.string().nullable(),
  execute_filemode: z.boolean(),
  content: z.string(),
}).meta({ id: 'RepositoryFile' });
export type RepositoryFile = z.infer<typeof RepositoryFileSchema>;

export function repositoryFileEntity(
  path: string,
  file: FileEntry,
  x: { ref: string; commitSha: string; lastCommitId: string | null; contentSha256: string; content: string },
): RepositoryFile {
  return {
    file_name: path.split('/').pop()!,
    file_path: path,
    size: file.size,
    encoding: 'base64',
    content_sha256: x.contentSha256,
    ref: x.ref,
    blob_id: file.blobSha,
    commit_id: x.commitSha,
    last_commit_id: x.lastCommitId,
    execute_filemode: file.mode === '100755',
    content: x.content,
  };
}

export const TreeObjectSchema = obj({
  id: z.string(),
  name: z.string(),
  type: z.enum(['tree', 'blob']),
  path: z.string(),
  mode: z.string(),
}).meta({ id: 'TreeObject' });
export type TreeObject = z.infer<typeof TreeObjectSchema>;
