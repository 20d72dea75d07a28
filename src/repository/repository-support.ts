/** What the repository routes share: the `read_code` check, link bases, `render_api_error!` bodies. */
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, forbidden } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { findReadableProject, findReadableProjectWith, readCode } from '../projects/projects';
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';

export const TAGS = ['repository'];
export type Found = Awaited<ReturnType<typeof findReadableProject>>;

/** `authorize! :read_code`: reporters on private projects, anyone who can see a public one. */
export async function readableRepo(c: Context<AppEnv>, caller: Caller, id: string): Promise<Found & { fullPath: string }> {
  const found = await findReadableProject(c, caller, id);
  if (!readCode(caller, found.project, found.level)) throw forbidden();
  return { ...found, fullPath: `${found.namespace.fullPath}/${found.project.path}` };
}

/** `readableRepo` with reads that need only the project's id in the same round trip (`findReadableProjectWith`). */
export async function readableRepoWith<const R extends readonly BatchItem<'sqlite'>[]>(c: Context<AppEnv>, caller: Caller, id: string, reads: (projectId: SQL) => R) {
  const found = await findReadableProjectWith(c, caller, id, reads);
  if (!readCode(caller, found.project, found.level)) throw forbidden();
  return { ...found, fullPath: `${found.namespace.fullPath}/${found.project.path}` };
}

/** The base URL and project path that commit, branch and compare links are built on. */
export const x = (c: Context<AppEnv>, f: { fullPath: string }) => ({ base: baseUrl(c), projectFullPath: f.fullPath });

/** render_api_error!(message, status): `{"message": "..."}`. */
export const apiMessage = (status: number, message: string) => new ApiError(status, { message });
