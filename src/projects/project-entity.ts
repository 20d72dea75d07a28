/**
 * Project presenters (lib/api/entities/project_identity.rb → basic_project_details.rb → project.rb,
 * project_with_access.rb), in GitLab's field order. Left out, because nothing here backs them:
 * container registry, CI/CD settings (runners, jobs, pipelines, auto devops), import, statistics,
 * license, forks (forks_count is 0, forked_from_project never present). Pure.
 */
import { z } from 'zod';
import type { UserRow } from '../platform/context';
import { date, id, int, obj, timestamp } from '../platform/response-schemas';
import { FEATURES, type Feature, featureAvailable, featureLevel, type NamespaceRow, type ProjectRow } from './abilities';
import { iso } from '../platform/time';
import { avatarUrl, userBasic, UserBasicSchema } from '../users/user-entity';
import { namespaceBasic, NamespaceBasicSchema } from './namespace-entity';

export interface ProjectExtras {
  base: string;
  /** Full name of the project's namespace (`Group / Subgroup`, or the user's name). */
  namespaceFullName: string;
  /** Owner of a personal namespace. */
  owner?: UserRow | null;
  /** Caller may read the repository (`read_code`). */
  readCode: boolean;
  /** Caller's project access level; feature flags like `issues_enabled` depend on it. */
  level: number;
  isAdmin: boolean;
  openIssuesCount?: number;
  /** The repository has no branches yet (Project#empty_repo?). */
  emptyRepo?: boolean;
  /** Entities::Project `shared_with_groups` (projects.ts `projectExtras`). */
  sharedWithGroups?: z.infer<typeof SharedGroupWithProjectSchema>[];
  /**
   * The project's import (project_import_states), null when it was never imported; given where the
   * response carries import_type and import_error (GET /projects/:id), absent elsewhere.
   */
  importState?: { status: string; type: string; error: string | null } | null;
}

export { FEATURES, type Feature, featureAvailable, featureLevel };

const topics = (p: ProjectRow) => (JSON.parse(p.topics || '[]') as string[]).slice().sort();

export const fullPathOf = (p: ProjectRow, ns: NamespaceRow) => `${ns.fullPath}/${p.path}`;

export const ProjectIdentitySchema = obj({
  id,
  description: z.string().nullable(),
  name: z.string(),
  name_with_namespace: z.string(),
  path: z.string(),
  path_with_namespace: z.string(),
  created_at: timestamp,
}).meta({ id: 'ProjectIdentity' });
export type ProjectIdentity = z.infer<typeof ProjectIdentitySchema>;

/** ProjectIdentity. */
export const projectIdentity = (p: ProjectRow, ns: NamespaceRow, x: Pick<ProjectExtras, 'namespaceFullName'>): ProjectIdentity => ({
  id: p.id,
  description: p.description ?? null,
  name: p.name,
  name_with_namespace: `${x.namespaceFullName} / ${p.name}`,
  path: p.path,
  path_with_namespace: fullPathOf(p, ns),
  created_at: iso(p.createdAt),
});

export const BasicProjectDetailsSchema = ProjectIdentitySchema.extend({
  /** Only for callers who may read the repository (read_code). */
  default_branch: z.string().optional(),
  tag_list: z.array(z.string()),
  topics: z.array(z.string()),
  ssh_url_to_repo: z.string(),
  http_url_to_repo: z.string(),
  web_url: z.string(),
  readme_url: z.string().nullable().optional(),
  forks_count: int.optional(),
  avatar_url: z.string().nullable(),
  star_count: int,
  last_activity_at: timestamp,
  namespace: NamespaceBasicSchema,
}).meta({ id: 'BasicProjectDetails' });
export type BasicProjectDetails = z.infer<typeof BasicProjectDetailsSchema>;

/** BasicProjectDetails (`simple=true` lists and nested projects). */
export function projectBasic(p: ProjectRow, ns: NamespaceRow, x: ProjectExtras): BasicProjectDetails {
  const fullPath = fullPathOf(p, ns);
  const host = new URL(x.base).host;
  return {
    ...projectIdentity(p, ns, x),
    ...(x.readCode ? { default_branch: p.defaultBranch ?? 'main' } : {}),
    tag_list: topics(p),
    topics: topics(p),
    ssh_url_to_repo: `git@${host.replace(/:\d+$/, '')}:${fullPath}.git`,
    http_url_to_repo: `${x.base}/${fullPath}.git`,
    web_url: `${x.base}/${fullPath}`,
    ...(x.readCode ? { readme_url: null, forks_count: 0 } : {}),
    avatar_url: p.avatarPath ? `${x.base}${p.avatarPath}` : null,
    star_count: 0,
    last_activity_at: iso(p.lastActivityAt),
    namespace: namespaceBasic(ns, { base: x.base, userAvatar: x.owner ? avatarUrl(x.owner, x.base) : null }),
  };
}

const AccessLevel = z.string();

/** Entities::SharedGroupWithProject: a group the project is shared with (POST /projects/:id/share). */
export const SharedGroupWithProjectSchema = obj({
  group_id: id,
  group_name: z.string(),
  group_full_path: z.string(),
  group_access_level: int,
  expires_at: date.nullable(),
}).meta({ id: 'SharedGroupWithProject' });

export const ProjectSchema = BasicProjectDetailsSchema.extend({
  _links: obj({
    self: z.string(),
    issues: z.string().optional(),
    merge_requests: z.string().optional(),
    repo_branches: z.string(),
    labels: z.string(),
    events: z.string(),
    members: z.string(),
    cluster_agents: z.string(),
  }),
  packages_enabled: z.boolean(),
  empty_repo: z.boolean(),
  archived: z.boolean(),
  visibility: z.enum(['private', 'internal', 'public']),
  /** Personal projects only. */
  owner: UserBasicSchema.optional(),
  resolve_outdated_diff_discussions: z.boolean(),
  issues_enabled: z.boolean(),
  merge_requests_enabled: z.boolean(),
  wiki_enabled: z.boolean(),
  jobs_enabled: z.boolean(),
  snippets_enabled: z.boolean(),
  container_registry_enabled: z.boolean(),
  service_desk_enabled: z.boolean(),
  service_desk_address: z.string().nullable(),
  can_create_merge_request_in: z.boolean(),
  issues_access_level: AccessLevel,
  repository_access_level: AccessLevel,
  merge_requests_access_level: AccessLevel,
  forking_access_level: AccessLevel,
  wiki_access_level: AccessLevel,
  builds_access_level: AccessLevel,
  snippets_access_level: AccessLevel,
  pages_access_level: AccessLevel,
  operations_access_level: AccessLevel,
  analytics_access_level: AccessLevel,
  container_registry_access_level: AccessLevel,
  emails_disabled: z.boolean(),
  emails_enabled: z.boolean(),
  shared_runners_enabled: z.boolean(),
  lfs_enabled: z.boolean(),
  creator_id: int.nullable(),
  import_status: z.string(),
  /** GET /projects/:id, for callers who may administer the project (Entities::Project `admin_project`). */
  import_type: z.string().nullable().optional(),
  import_error: z.string().nullable().optional(),
  /** Only when the caller may read issues. */
  open_issues_count: int.optional(),
  shared_with_groups: z.array(SharedGroupWithProjectSchema),
  only_allow_merge_if_pipeline_succeeds: z.boolean(),
  allow_merge_on_skipped_pipeline: z.boolean().nullable(),
  request_access_enabled: z.boolean(),
  only_allow_merge_if_all_discussions_are_resolved: z.boolean(),
  remove_source_branch_after_merge: z.boolean(),
  printing_merge_request_link_enabled: z.boolean(),
  merge_method: z.enum(['merge', 'rebase_merge', 'ff']),
  squash_option: z.enum(['never', 'always', 'default_on', 'default_off']),
  suggestion_commit_message: z.string().nullable(),
  autoclose_referenced_issues: z.boolean(),
}).meta({ id: 'Project' });
export type Project = z.infer<typeof ProjectSchema>;

/** Project (lists without `simple`, create, update). */
export function projectEntity(p: ProjectRow, ns: NamespaceRow, x: ProjectExtras): Project {
  const api = `${x.base}/api/v4/projects/${p.id}`;
  const avail = (f: Feature) => featureAvailable(p, f, x);
  return {
    ...projectBasic(p, ns, x),
    _links: {
      self: api,
      ...(avail('issues') ? { issues: `${api}/issues` } : {}),
      ...(avail('merge_requests') && avail('repository') ? { merge_requests: `${api}/merge_requests` } : {}),
      repo_branches: `${api}/repository/branches`,
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
      cluster_agents: `${api}/cluster_agents`,
    },
    packages_enabled: true,
    empty_repo: x.emptyRepo ?? true,
    archived: p.archived,
    visibility: p.visibility as Project['visibility'],
    ...(ns.kind === 'User' && x.owner ? { owner: userBasic(x.owner, { base: x.base }) } : {}),
    resolve_outdated_diff_discussions: false,
    issues_enabled: avail('issues'),
    merge_requests_enabled: avail('merge_requests'),
    wiki_enabled: avail('wiki'),
    jobs_enabled: avail('builds'),
    snippets_enabled: avail('snippets'),
    container_registry_enabled: avail('container_registry'),
    service_desk_enabled: false,
    service_desk_address: null,
    can_create_merge_request_in: x.isAdmin || x.level >= 30,
    issues_access_level: featureLevel(p, 'issues'),
    repository_access_level: featureLevel(p, 'repository'),
    merge_requests_access_level: featureLevel(p, 'merge_requests'),
    forking_access_level: featureLevel(p, 'forking'),
    wiki_access_level: featureLevel(p, 'wiki'),
    builds_access_level: featureLevel(p, 'builds'),
    snippets_access_level: featureLevel(p, 'snippets'),
    pages_access_level: featureLevel(p, 'pages'),
    operations_access_level: featureLevel(p, 'operations'),
    analytics_access_level: featureLevel(p, 'analytics'),
    container_registry_access_level: featureLevel(p, 'container_registry'),
    emails_disabled: false,
    emails_enabled: true,
    shared_runners_enabled: true,
    lfs_enabled: p.lfsEnabled,
    creator_id: p.creatorId ?? null,
    import_status: x.importState?.status ?? 'none',
    ...(x.importState !== undefined && (x.isAdmin || x.level >= 40) ? { import_type: x.importState?.type ?? null, import_error: x.importState?.error ?? null } : {}),
    ...(avail('issues') ? { open_issues_count: x.openIssuesCount ?? 0 } : {}),
    shared_with_groups: x.sharedWithGroups ?? [],
    only_allow_merge_if_pipeline_succeeds: false,
    allow_merge_on_skipped_pipeline: null,
    request_access_enabled: p.requestAccessEnabled,
    only_allow_merge_if_all_discussions_are_resolved: p.onlyAllowMergeIfAllDiscussionsAreResolved,
    remove_source_branch_after_merge: true,
    printing_merge_request_link_enabled: true,
    merge_method: p.mergeMethod as Project['merge_method'],
    squash_option: p.squashOption as Project['squash_option'],
    suggestion_commit_message: null,
    autoclose_referenced_issues: true,
  };
}

const Access = obj({ access_level: int, notification_level: int }).nullable();
export const ProjectWithAccessSchema = ProjectSchema.extend({ permissions: obj({ project_access: Access, group_access: Access }) }).meta({ id: 'ProjectWithAccess' });
export type ProjectWithAccess = z.infer<typeof ProjectWithAccessSchema>;

/** ProjectWithAccess (GET /projects/:id): Project plus the caller's own project and group access. */
export function projectWithAccess(p: ProjectRow, ns: NamespaceRow, x: ProjectExtras & { projectLevel: number | null; groupLevel: number | null }): ProjectWithAccess {
  const lv = (n: number | null) => (n ? { access_level: n, notification_level: 3 } : null);
  return { ...projectEntity(p, ns, x), permissions: { project_access: lv(x.projectLevel), group_access: lv(x.groupLevel) } };
}

/** `accepted!` (lib/api/helpers.rb): the body of a deletion that GitLab finishes in a worker. */
export const AcceptedSchema = obj({ message: z.literal('202 Accepted') });
export const accepted = (): z.infer<typeof AcceptedSchema> => ({ message: '202 Accepted' });
