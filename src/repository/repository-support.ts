/** What the repository routes share: the `read_code` check, link bases, `render_api_error!` bodies. */
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, forbidden } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { findReadableProject, readCode } from '../projects/projects';

export const TAGS = ['repository'];
export type Found = Awaited<ReturnType<typeof findReadableProject>>;

/** `authorize! :read_code`: reporters on private projects, anyone who can see a public one. */
export async function readableRepo(c: Context<AppEnv>, caller: Caller, id: string): Promise<Found & { fullPath: string }> {
  const found = await findReadableProject(c, caller, id);
  if (!readCode(caller, found.project, found.level)) throw forbidden();
  return { ...found, fullPath: `${found.namespace.fullPath}/${found.project.path}` };
}

/** The base URL and project path that commit, branch and compare links are built on. */
export const x = (c: Context<AppEnv>, f: { fullPath: string }) => ({ base: baseUrl(c), projectFullPath: f.fullPath });

/** render_api_error!(message, status): `{"message": "..."}`. */
export const apiMessage = (status: number, message: string) => new ApiError(status, { message });
