/**
 * The project as entities of this domain nest it (BasicProjectDetails), read in the caller's first
 * round trip: its namespace's full name and a personal namespace's owner (projects.ts extras).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import type { AppEnv, Caller } from '../platform/context';
import { baseUrl } from '../platform/pagination';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { type BasicProjectDetails, projectBasic } from '../projects/project-entity';
import { projectExtras, projectExtrasReads, readCode } from '../projects/projects';

/** Unexecuted reads for the batch of `findReadableProjectWith`. */
export function projectBasicReads(db: Db, pid: SQL) {
  const [, , names, owners] = projectExtrasReads(db, (col) => sql`${col} = ${pid}`);
  return [names, owners] as const;
}

type Results = [{ id: number; fullName: string }[], Parameters<typeof projectExtras>[0][3]];

/** BasicProjectDetails of the found project from the results of `projectBasicReads`. */
export function presentProjectBasic(c: Context<AppEnv>, caller: Caller, found: { project: ProjectRow; namespace: NamespaceRow; level: number }, [names, owners]: Results): BasicProjectDetails {
  const x = projectExtras([undefined, undefined, names, owners]);
  const id = found.project.id;
  return projectBasic(found.project, found.namespace, {
    base: baseUrl(c),
    namespaceFullName: x.fullName(id),
    owner: found.namespace.ownerId ? x.owner(id) : null,
    readCode: readCode(caller, found.project, found.level),
    level: found.level,
    isAdmin: caller.isAdmin,
  });
}
