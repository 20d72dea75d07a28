/**
 * A repository file (lib/api/files.rb `blob_data` plus `content`) and Entities::TreeObject
 * (lib/api/entities/tree_object.rb), in GitLab's field order. Pure.
 */
import { z } from 'zod';
import { int, obj } from '../platform/response-schemas';

/** files.rb builds this hash itself (`blob_data` plus `content`); GitLab has no entity of that name. */
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

/** `blob_data`: also sent as X-Gitlab-* headers; `ref` is null on `raw` without one. */
export type BlobData = Omit<RepositoryFile, 'content' | 'ref'> & { ref: string | null };

export function repositoryFileEntity(data: BlobData, content: string): RepositoryFile {
  return { ...data, ref: data.ref ?? '', content };
}

/** files.rb `commit_response`: what a create, update or delete answers. */
export const FileCommitSchema = obj({ file_path: z.string(), branch: z.string() }).meta({ id: 'RepositoryFileCommit' });
export type FileCommit = z.infer<typeof FileCommitSchema>;

export const TreeObjectSchema = obj({
  id: z.string(),
  name: z.string(),
  type: z.enum(['tree', 'blob']),
  path: z.string(),
  mode: z.string(),
}).meta({ id: 'TreeObject' });
export type TreeObject = z.infer<typeof TreeObjectSchema>;
