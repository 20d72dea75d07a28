/**
 * Values that pass a parameter's model validation, by parameter name (and route where one name means
 * different things): a real SSH or GPG key, an emoji name, a color, an access level, token scopes,
 * commit actions. The declared type alone (`String`) rarely produces them, and without them a create
 * route would only ever answer 400. A few routes read parameters they do not declare (the OAuth and
 * sign-in forms); `undeclaredParams` names those.
 */
import { fc } from '@fast-check/vitest';
import { DEV_ROOT_PASSWORD } from '../../src/platform/config';
import type { RouteRecord } from '../../src/platform/router';
import { freshGpgKey, freshSshKey } from '../fixtures/keys';
import type { World } from './world';

let n = 0;
const fresh = (prefix: string) => fc.constant(null).map(() => `${prefix}${Date.now().toString(36)}${(n++).toString(36)}`);
const future = fc.integer({ min: 2, max: 300 }).map((d) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10));

export function hintFor(route: RouteRecord, name: string, world: () => World): fc.Arbitrary<unknown> | undefined {
  const path = route.path;
  const pick = <T>(f: (w: World) => T[]) => fc.nat({ max: 999 }).map((i) => f(world())[i % f(world()).length]);
  const userIds = pick((w) => [w.users.victim.id, w.users.user.id, w.users.owner.id]);
  switch (name) {
    case 'key':
      if (path.includes('gpg_keys')) return fc.constant(null).map(() => freshGpgKey().key);
      if (path.endsWith('/keys')) return fc.constantFrom('ed25519', 'rsa', 'ecdsa').map((t) => freshSshKey(t as 'ed25519', t === 'rsa' ? 2048 : undefined).key);
      return undefined;
    case 'name':
      if (path.includes('award_emoji')) return fc.constantFrom('thumbsup', 'thumbsdown', 'tada', 'heart', 'rocket', '100', 'not_an_emoji');
      if (path.includes('protected_branches')) return fc.constantFrom('main', 'feature', 'release-*', 'hotfix/*');
      if (path.includes('labels')) return fc.oneof(fresh('label '), pick(() => ['bug', 'needs review', 'grouplabel']));
      return fresh('n');
    case 'new_name':
    case 'title':
      return fresh('t');
    case 'path':
    case 'username':
      return fresh('p');
    case 'email':
    case 'public_email':
    case 'commit_email':
      return fresh('m').map((s) => `${s}@example.com`);
    case 'password':
      return fc.constant('Fuzz-password-long-1');
    case 'color':
      return fc.constantFrom('#ff0000', '#00FF00', 'red', '#abc');
    case 'access_level':
    case 'push_access_level':
    case 'merge_access_level':
    case 'unprotect_access_level':
      return fc.constantFrom(10, 20, 30, 40, 50, 0, 60);
    case 'package_manager':
      return fc.constantFrom('npm', 'yarn', 'npm,yarn', ['pnpm', 'npm'], 'cargo');
    case 'scopes':
      return path.includes('applications') ? fc.constantFrom('api', 'api read_user', 'read_api') : fc.constantFrom(['api'], ['read_api', 'read_user'], 'api', ['sudo']);
    case 'redirect_uri':
      return fc.constantFrom('https://example.com/cb', 'http://localhost:3000/callback');
    case 'duration':
      return fc.constantFrom('1h', '30m', '1d 2h', '-10m', '1w', '3mo');
    case 'expires_at':
    case 'due_date':
    case 'start_date':
      return future;
    case 'user_id':
    case 'assignee_id':
    case 'author_id':
    case 'reviewer_id':
      return userIds;
    case 'user_ids':
    case 'assignee_ids':
    case 'reviewer_ids':
      return fc.array(userIds, { maxLength: 2 });
    case 'branch':
      return path.endsWith('/branches') ? fresh('br') : pick(() => ['main', 'feature', 'topic']);
    case 'ref':
    case 'source_branch':
    case 'target_branch':
    case 'from':
    case 'to':
      return pick(() => ['main', 'feature', 'topic']);
    case 'actions':
      return fc.record({ action: fc.constantFrom('create', 'update', 'delete', 'move', 'chmod'), file_path: fc.oneof(fresh('f'), fc.constantFrom('README.md', 'f.txt')), content: fc.string() }).map((a) => [a]);
    case 'commit_message':
      return fc.constant('fuzz commit');
    case 'grant_type':
      return fc.constantFrom('password', 'refresh_token', 'authorization_code', 'client_credentials');
    case 'login':
      return fc.constantFrom('root', 'admin@example.com', 'nobody');
    case 'namespace_id':
      return pick((w) => [w.segments.group[0], w.users.user.username]);
    case 'milestone_id':
    case 'epic_id':
    case 'parent_id':
      return pick((w) => w.ints);
    case 'labels':
    case 'add_labels':
    case 'remove_labels':
      return fc.constantFrom('bug', 'bug,grouplabel', ['needs review'], 'None', 'Any');
    case 'state_event':
      return fc.constantFrom('close', 'reopen', 'activate');
    default:
      return undefined;
  }
}

/** Parameters a route reads without declaring them (OAuth grants, the sign-in form). */
export function undeclaredParams(route: RouteRecord): [string, fc.Arbitrary<unknown>][] {
  switch (`${route.method} ${route.path}`) {
    case 'POST /oauth/token':
      return [
        ['grant_type', fc.constantFrom('password', 'refresh_token', 'authorization_code')],
        ['username', fc.constantFrom('root', 'nobody')],
        ['password', fc.constantFrom(DEV_ROOT_PASSWORD, 'wrong')],
        ['scope', fc.constantFrom('api', 'read_user api', 'bogus')],
        ['refresh_token', fc.string({ maxLength: 20 })],
      ];
    case 'POST /users/sign_in':
      return [
        ['login', fc.constantFrom('root', 'admin@example.com', 'nobody')],
        ['password', fc.constantFrom(DEV_ROOT_PASSWORD, 'wrong')],
        ['remember_me', fc.constantFrom('1', '0')],
      ];
    case 'POST /oauth/revoke':
    case 'GET /oauth/token/info':
      return [
        ['token', fc.string({ maxLength: 20 })],
        ['access_token', fc.string({ maxLength: 20 })],
      ];
    default:
      return [];
  }
}
