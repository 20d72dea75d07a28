/** Tags (lib/api/tags.rb): list, get, create (lightweight or annotated), delete and the signature. */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { repoTags } from '../db/schema';
import { forbidden, notFound } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { baseUrl, linkParamsFrom, pageRequest, paginationParams, setPaginationHeaders, toQuery } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { recordEvent } from '../platform/events';
import { g, params } from '../platform/validate';
import { ACCESS } from '../projects/abilities';
import { isValidBranchName } from '../platform/git-ref';
import { commitAtRef } from './history-reads';
import { canPushCode } from './protected-branches';
import { canCreateTag, isProtectedTag, protectedTagReads, withCreateLevels } from './protected-tags';
import { apiMessage, readableRepoWith, x } from './repository-support';
import { newTagRow, orderTags, searchTags, tagRows, type TagWithCommit } from './tags';
import { tagEntity, TagSchema } from './tags-entity';

const TAGS = ['tags'];

/** Entities::TagSignature as GitLab documents it (X509 signatures merge their certificate's fields in); never answered here. */
const TagSignatureSchema = z.object({ signature_type: z.enum(['PGP', 'X509', 'SSH']) }).passthrough();

/** Gitlab::GitRefValidator.validate: git's ref format, and no name starting with a ref prefix (`refs/heads/`, `refs/remotes/`, `refs/tags/`). */
const isValidTagName = (name: string) => isValidBranchName(name) && !/^refs\/(heads|remotes|tags)\//.test(name);

const BLANK_SHA = '0000000000000000000000000000000000000000';

/** What a tag push hook needs of the ref change (Gitlab::DataBuilder::Push for refs/tags/: no commits). */
const tagPushData = (name: string, before: string, after: string, checkoutSha: string | null, message: string | null) => ({
  before,
  after,
  ref: `refs/tags/${name}`,
  checkout_sha: checkoutSha,
  message,
  commits: [],
  total_commits_count: 0,
});

export function mountTags(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/tags',
      summary: 'Get a project repository tags',
      tags: TAGS,
      params: params({
        id: g.string(),
        sort: g.enum(['asc', 'desc']).default('desc'),
        order_by: g.enum(['name', 'updated', 'version']).default('updated'),
        search: g.search().optional(),
        page_token: g.string().optional(),
        ...paginationParams,
      }),
      responses: { 200: z.array(TagSchema) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      // The matching tags, their commits and the protection rules come with the project in one round
      // trip; a repository's tags are few, so they are ordered and paged in memory (TagsFinder asks
      // Gitaly for all of them too).
      const found = await readableRepoWith(c, caller, p.id, (pid) => [tagRows(db, pid), ...protectedTagReads(db, pid)] as const);
      const [rows, rules] = found.reads;
      const ordered = orderTags(searchTags(rows as TagWithCommit[], p.search), p.order_by, p.sort);
      const present = (page: TagWithCommit[]) => c.json(page.map((t) => tagEntity(t, isProtectedTag(rules, t.tag.name), x(c, found))));
      if (raw.pagination === 'keyset') {
        // GitalyKeysetPager: the page after the tag `page_token` names, and a `rel="next"` link when the page is full.
        const start = p.page_token === undefined ? 0 : ordered.findIndex((t) => t.tag.name === p.page_token) + 1;
        if (start === 0 && p.page_token !== undefined) throw apiMessage(422, `Invalid page token: ${p.page_token}`);
        const page = ordered.slice(start, start + req.perPage);
        if (page.length === req.perPage) {
          const next = { ...linkParamsFrom(raw, {}), per_page: req.perPage, page_token: page[page.length - 1].tag.name };
          c.header('Link', `<${baseUrl(c)}${new URL(c.req.url).pathname}?${toQuery(next)}>; rel="next"`);
        }
        return present(page);
      }
      const page = ordered.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), ordered.length, page.length);
      return present(page);
    },
  );

  const tagRef = params({ id: g.string(), tag_name: g.string() });
  r.route({ method: 'GET', path: '/projects/:id/repository/tags/:tag_name', summary: 'Get a single repository tag', tags: TAGS, params: tagRef, responses: { 200: TagSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const found = await readableRepoWith(c, caller, p.id, (pid) => [tagRows(db, pid, p.tag_name), ...protectedTagReads(db, pid)] as const);
    const [[tag], rules] = found.reads;
    if (!tag) throw notFound('Tag');
    return c.json(tagEntity(tag as TagWithCommit, isProtectedTag(rules, p.tag_name), x(c, found)));
  });

  // tags.rb `signature`: the tag, then `tag.has_signature?`. Tags made here are never signed (no key
  // signs them), so an existing tag answers GitLab's 404 for a tag without a signature.
  r.route({ method: 'GET', path: '/projects/:id/repository/tags/:tag_name/signature', summary: "Get a tag's signature", tags: TAGS, params: tagRef, responses: { 200: TagSignatureSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const found = await readableRepoWith(c, caller, p.id, (pid) => [db.select({ id: repoTags.id }).from(repoTags).where(and(sql`${repoTags.projectId} = ${pid}`, eq(repoTags.name, p.tag_name))).limit(1)] as const);
    if (!found.reads[0].length) throw notFound('Tag');
    throw notFound('Signature');
  });

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/repository/tags',
      summary: 'Create a new repository tag',
      tags: TAGS,
      params: params({ id: g.string(), tag_name: g.string(), ref: g.string(), message: g.string().optional() }),
      responses: { 201: TagSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      // One round trip for the checks (the project, its tag protection, the tag, the target), one for the write.
      const found = await readableRepoWith(c, caller, p.id, (pid) => [
        ...protectedTagReads(db, pid),
        db.select({ id: repoTags.id }).from(repoTags).where(and(sql`${repoTags.projectId} = ${pid}`, eq(repoTags.name, p.tag_name))).limit(1),
        commitAtRef(db, pid, p.ref),
      ] as const);
      const [rules, levels, existing, [commit]] = found.reads;
      // tags.rb: authorize_admin_tag (developers and above, nobody on an archived project).
      if (!canPushCode(caller, found.level, found.project.archived)) throw forbidden();
      // Tags::CreateService, then the pre-receive TagCheck Gitaly runs, then the ref update.
      if (!p.ref.trim()) throw apiMessage(400, 'Target is empty');
      if (!isValidTagName(p.tag_name)) throw apiMessage(400, 'Tag name invalid');
      if (!commit) throw apiMessage(400, `Target ${p.ref} is invalid`);
      if (p.tag_name === found.project.defaultBranch) throw apiMessage(400, 'You cannot use default branch name to create a tag');
      if (/^[0-9a-f]{40}/i.test(p.tag_name)) throw apiMessage(400, 'You cannot create a tag with a SHA-1 or SHA-256 tag name.');
      if (!canCreateTag(caller, found.level, withCreateLevels(rules, levels), p.tag_name, found.project.archived)) throw apiMessage(400, 'You are not allowed to create this tag as it is protected.');
      if (existing.length) throw apiMessage(400, `Tag ${p.tag_name} already exists`);
      const row = newTagRow(found.project.id, p.tag_name, commit.sha, p.message?.trim(), { userId: user.id, name: user.name, email: user.email }, Date.now());
      let tag;
      try {
        // The tag and its tag push event (Git::TagPushService: no commits, the tag's message) in one batch.
        const event = recordEvent(c, { kind: 'tag_push', projectId: found.project.id, actorId: user.id, data: tagPushData(p.tag_name, BLANK_SHA, row.targetSha!, commit.sha, row.message ?? null) });
        [[tag]] = (await db.batch([db.insert(repoTags).values(row).returning(), ...event])) as unknown as [(typeof repoTags.$inferSelect)[]];
      } catch (err) {
        // A concurrent create of the same name: the unique index decides.
        if (/UNIQUE constraint failed/i.test(String((err as Error).message) + String((err as { cause?: Error }).cause?.message))) throw apiMessage(400, `Tag ${p.tag_name} already exists`);
        throw err;
      }
      return c.json(tagEntity({ tag, commit }, isProtectedTag(rules, p.tag_name), x(c, found)), 201);
    },
  );

  r.route({ method: 'DELETE', path: '/projects/:id/repository/tags/:tag_name', summary: 'Delete a repository tag', tags: TAGS, params: tagRef, responses: { 204: null } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const db = c.var.db;
    const found = await readableRepoWith(c, caller, p.id, (pid) => [
      db.select().from(repoTags).where(and(sql`${repoTags.projectId} = ${pid}`, eq(repoTags.name, p.tag_name))).limit(1),
      ...protectedTagReads(db, pid),
    ] as const);
    const [[tag], rules] = found.reads;
    if (!tag) throw notFound('Tag');
    // TagPolicy: admin_tag, and for a protected tag delete_protected_tag (maintainers and above).
    const maintainer = caller.isAdmin || found.level >= ACCESS.MAINTAINER;
    if (!canPushCode(caller, found.level, found.project.archived) || (isProtectedTag(rules, tag.name) && !maintainer)) throw forbidden();
    const user = caller.user!;
    const event = recordEvent(c, { kind: 'tag_push', projectId: found.project.id, actorId: user.id, data: tagPushData(tag.name, tag.targetSha, BLANK_SHA, null, null) });
    await db.batch([db.delete(repoTags).where(eq(repoTags.id, tag.id)), ...event]);
    return c.body(null, 204);
  });
}
