/** Namespace presenters (lib/api/entities/namespace_basic.rb, namespace.rb). Pure. */
import { z } from 'zod';
import { id, int, obj } from '../platform/response-schemas';
import type { NamespaceRow } from './abilities';

/** Web URL of a namespace: `/<username>` for a user, `/groups/<full_path>` for a group. */
export const namespaceWebUrl = (ns: NamespaceRow, base: string) => (ns.kind === 'Group' ? `${base}/groups/${ns.fullPath}` : `${base}/${ns.fullPath}`);

export const namespaceAvatarUrl = (ns: NamespaceRow, base: string, userAvatar?: string | null) =>
  ns.kind === 'Group' ? (ns.avatarPath ? `${base}${ns.avatarPath}` : null) : (userAvatar ?? null);

export const NamespaceBasicSchema = obj({
  id,
  name: z.string(),
  path: z.string(),
  kind: z.enum(['group', 'user']),
  full_path: z.string(),
  parent_id: int.nullable(),
  avatar_url: z.string().nullable(),
  web_url: z.string(),
}).meta({ id: 'NamespaceBasic' });
export type NamespaceBasic = z.infer<typeof NamespaceBasicSchema>;

/** NamespaceBasic: the `namespace` object of a project. */
export const namespaceBasic = (ns: NamespaceRow, x: { base: string; userAvatar?: string | null }): NamespaceBasic => ({
  id: ns.id,
  name: ns.name,
  path: ns.path,
  kind: ns.kind === 'Group' ? 'group' : 'user',
  full_path: ns.fullPath,
  parent_id: ns.parentId ?? null,
  avatar_url: namespaceAvatarUrl(ns, x.base, x.userAvatar),
  web_url: namespaceWebUrl(ns, x.base),
});

export const NamespaceSchema = NamespaceBasicSchema.extend({ members_count_with_descendants: int.optional() }).meta({ id: 'Namespace' });
export type Namespace = z.infer<typeof NamespaceSchema>;

/** Namespace: NamespaceBasic plus the member count of a group whose caller may administer it. */
export const namespaceEntity = (ns: NamespaceRow, x: { base: string; userAvatar?: string | null; membersCount?: number }): Namespace => ({
  ...namespaceBasic(ns, x),
  ...(x.membersCount !== undefined ? { members_count_with_descendants: x.membersCount } : {}),
});
