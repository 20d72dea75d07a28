/**
 * Pieces every webhook payload shares (Gitlab::HookData, `hook_attrs` of User, Project, Label):
 * built in the consumer from rows, never in the request that caused the event.
 */
import type { labels, namespaces, projects, users } from '../db/schema';

type UserRow = typeof users.$inferSelect;
type ProjectRow = typeof projects.$inferSelect;
type NamespaceRow = typeof namespaces.$inferSelect;
type LabelRow = typeof labels.$inferSelect;

/** The GitLab version this server answers as (User-Agent `GitLab/<version>`). */
export const GITLAB_VERSION = '17.11.0';

/** Hook payload timestamps: what Sidekiq's JSON makes of a Ruby Time (`2013-12-03 17:15:43 UTC`). */
export const hookTime = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));

const host = (base: string) => new URL(base).host.replace(/:\d+$/, '');

/** User#hook_attrs; the email is redacted since GitLab 16 (webhook_events.md). */
export const userHookAttrs = (u: UserRow | undefined, base: string) => ({
  id: u?.id ?? 0,
  name: u?.name ?? 'Ghost User',
  username: u?.username ?? 'ghost',
  avatar_url: u?.avatarPath ? `${base}/uploads/-/system/user/avatar/${u.id}/avatar.png` : null,
  email: '[REDACTED]',
});

export interface ProjectCtx {
  project: ProjectRow;
  namespace: NamespaceRow;
  base: string;
}

export const fullPath = (x: ProjectCtx) => `${x.namespace.fullPath}/${x.project.path}`;
const VISIBILITY: Record<string, number> = { private: 0, internal: 10, public: 20 };

/** Project#hook_attrs (with the deprecated homepage/url/ssh_url/http_url). */
export function projectHookAttrs(x: ProjectCtx) {
  const path = fullPath(x);
  const web = `${x.base}/${path}`;
  const ssh = `git@${host(x.base)}:${path}.git`;
  return {
    id: x.project.id,
    name: x.project.name,
    description: x.project.description,
    web_url: web,
    avatar_url: null,
    git_ssh_url: ssh,
    git_http_url: `${web}.git`,
    namespace: x.namespace.name,
    visibility_level: VISIBILITY[x.project.visibility] ?? 0,
    path_with_namespace: path,
    default_branch: x.project.defaultBranch,
    ci_config_path: null,
    homepage: web,
    url: ssh,
    ssh_url: ssh,
    http_url: `${web}.git`,
  };
}

/** `repository` of issue, merge request and note payloads. */
export const repositoryAttrs = (x: ProjectCtx) => {
  const web = `${x.base}/${fullPath(x)}`;
  return { name: x.project.name, url: `git@${host(x.base)}:${fullPath(x)}.git`, description: x.project.description, homepage: web };
};

/** Label#hook_attrs. */
export const labelHookAttrs = (l: LabelRow) => ({
  id: l.id,
  title: l.title,
  color: l.color,
  project_id: l.projectId,
  created_at: hookTime(l.createdAt),
  updated_at: hookTime(l.updatedAt),
  template: false,
  description: l.description,
  type: l.projectId != null ? 'ProjectLabel' : 'GroupLabel',
  group_id: l.groupId,
});

/** Gitlab::TimeTrackingFormatter for the human_* fields (1w 2d 3h 4m; weeks of 5 days, days of 8 hours). */
export function humanTime(seconds: number): string | null {
  if (!seconds) return null;
  const neg = seconds < 0;
  let s = Math.abs(seconds);
  const parts: string[] = [];
  for (const [unit, size] of [['mo', 4 * 5 * 8 * 3600], ['w', 5 * 8 * 3600], ['d', 8 * 3600], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(s / size);
    if (n) parts.push(`${n}${unit}`);
    s -= n * size;
  }
  return (neg ? '-' : '') + parts.join(' ');
}
