/**
 * GET /projects/:id/dependencies (ee/lib/api/dependencies.rb, Ultimate): `authenticate!` (the router),
 * `package_manager` validated against GitLab's list, the project (404), then `read_dependency`: the
 * plan's feature and `download_code` (403). One page in the project's round trip, ordered by id;
 * the advisories of the page's packages come in the same batch, read only by callers who may read
 * the security dashboard (`read_security_resource`: developers and above), whose entries then carry
 * `vulnerabilities` (absent otherwise, not empty).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { advisories, advisoryPackages, projectDependencies } from '../db/schema';
import { forbidden } from '../platform/errors';
import { countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { requirePlan } from '../platform/plan';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { ACCESS, hasProjectLevel } from '../projects/abilities';
import { findReadableProjectWith, readCode } from '../projects/projects';
import { type AdvisoryRow, vulnerabilitiesOf } from './advisories';
import { PACKAGE_MANAGERS } from './ecosystems';

const VulnerabilitySchema = z.object({ name: z.string(), severity: z.string(), id: z.number().int(), url: z.string() }).meta({ id: 'DependencyVulnerability' });

export const DependencySchema = z
  .object({
    name: z.string(),
    version: z.string(),
    package_manager: z.string(),
    dependency_file_path: z.string(),
    vulnerabilities: z.array(VulnerabilitySchema).optional(),
  })
  .meta({ id: 'Dependency' });

const listParams = params({
  id: g.string(),
  package_manager: g.csv().refine((list) => list.every((m) => (PACKAGE_MANAGERS as readonly string[]).includes(m)), { message: 'does not have a valid value' }).optional(),
  ...paginationParams,
});

export function mountDependencies(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/dependencies', summary: 'List project dependencies', tags: ['dependencies'], params: listParams, responses: { 200: z.array(DependencySchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const managers = p.package_manager?.length ? p.package_manager : null;
      const where = (pid: unknown) =>
        and(sql`${projectDependencies.projectId} = ${pid}`, managers ? sql`${projectDependencies.packageManager} IN (SELECT value FROM json_each(${JSON.stringify(managers)}))` : undefined);
      const page = (pid: unknown) => sql`(SELECT ${projectDependencies.id} FROM ${projectDependencies} WHERE ${where(pid)} ORDER BY ${projectDependencies.id} LIMIT ${req.perPage} OFFSET ${req.offset})`;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        db.select().from(projectDependencies).where(where(pid)).orderBy(asc(projectDependencies.id)).limit(req.perPage).offset(req.offset),
        countUpToQuery(db, projectDependencies, where(pid), MAX_COUNT + 1),
        // The advisories naming a package of the page (matched to each version below).
        db
          .selectDistinct({ id: advisories.id, osvId: advisories.osvId, record: advisories.record, ecosystem: advisoryPackages.ecosystem, name: advisoryPackages.name })
          .from(advisoryPackages)
          .innerJoin(advisories, eq(advisories.id, advisoryPackages.advisoryId))
          .where(
            sql`(${advisoryPackages.ecosystem}, ${advisoryPackages.name}) IN (SELECT d.ecosystem, d.package_key FROM ${projectDependencies} d WHERE d.id IN ${page(pid)})`,
          )
          .orderBy(asc(advisories.id)),
      ] as const);
      // read_dependency: the plan's feature (dependency_scanning), then download_code.
      requirePlan(c.var.config, 'ultimate');
      if (!readCode(caller, found.project, found.level)) throw forbidden();
      const [rows, counted, advisoryRows] = found.reads;
      const n = Number(counted[0]?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), n > MAX_COUNT ? null : n, rows.length);
      const security = hasProjectLevel(caller, found.level, ACCESS.DEVELOPER);
      const byPackage = new Map<string, AdvisoryRow[]>();
      for (const a of advisoryRows) {
        const key = `${a.ecosystem}\u0000${a.name}`;
        byPackage.set(key, [...(byPackage.get(key) ?? []), a]);
      }
      return c.json(
        rows.map((d) => ({
          name: d.name,
          version: d.version,
          package_manager: d.packageManager,
          dependency_file_path: d.dependencyFilePath,
          ...(security ? { vulnerabilities: vulnerabilitiesOf(d, byPackage.get(`${d.ecosystem}\u0000${d.packageKey}`) ?? []) } : {}),
        })),
      );
    },
  );
}
