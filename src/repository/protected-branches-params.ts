/**
 * Protected branches API parameters (GitLab lib/api/protected_branches.rb,
 * lib/api/helpers/protected_branches_helpers.rb, ee/lib/ee/api/helpers/protected_branches_helpers.rb).
 * The Premium parameters (unprotect levels, user and group entries, code owner approval) are
 * declared here for every plan; the handler ignores them on a free instance, as CE does not declare them.
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import { g, LONG_LIST_MAX, params } from '../platform/validate';
import { ROLE_LEVELS, UNPROTECT_ROLE_LEVELS } from './protected-branches';

const id = g.string();

/** Grape's JSON type: a string is parsed as JSON (unparsable text stays a string and fails as invalid). */
function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/**
 * `Array[JSON]` of hashes: a JSON array, `a[][k]=v`, Rack's index hash `a[0][k]=v` (Grape turns it
 * into an array), a JSON string of either, or a single hash (wrapped, as Grape coerces one value).
 */
export const hashArray = <T extends z.ZodType>(item: T) =>
  z
    .preprocess((raw) => {
      const v = parseJson(raw);
      if (v === undefined) return undefined;
      if (Array.isArray(v)) return v.map(parseJson);
      if (v && typeof v === 'object') {
        const keys = Object.keys(v);
        if (keys.length && keys.every((k) => /^\d+$/.test(k)))
          return Object.entries(v)
            .sort((a, b) => Number(a[0]) - Number(b[0]))
            .map(([, x]) => parseJson(x));
        return [v];
      }
      return v;
    }, z.array(item, { error: 'is invalid' }).refine((l) => l.length <= LONG_LIST_MAX, { message: `must contain at most ${LONG_LIST_MAX} items` }))
    .meta({ grapeType: 'Array', jsonType: 'array' });

/** One `allowed_to_*` entry; `id` and `_destroy` address an existing entry on update (nested attributes). */
const entry = (levels: readonly number[]) =>
  z.object(
    {
      id: g.int().optional(),
      _destroy: g.bool().optional(),
      access_level: g.intEnum(levels).optional(),
      user_id: g.int().optional(),
      group_id: g.int().optional(),
      deploy_key_id: g.int().optional(),
    },
    { error: 'is invalid' },
  );

export type AccessEntry = z.output<ReturnType<typeof entry>>;

const eeShape = {
  unprotect_access_level: g.intEnum(UNPROTECT_ROLE_LEVELS).optional(),
  allowed_to_push: hashArray(entry(ROLE_LEVELS)).optional(),
  allowed_to_merge: hashArray(entry(ROLE_LEVELS)).optional(),
  allowed_to_unprotect: hashArray(entry(UNPROTECT_ROLE_LEVELS)).optional(),
  code_owner_approval_required: g.bool().optional(),
};

export const listProtectedBranchesParams = params({ id, search: g.search().optional(), ...paginationParams });

export const getProtectedBranchParams = params({ id, name: g.string() });

export const createProtectedBranchParams = params({
  id,
  name: g.string(),
  push_access_level: g.intEnum(ROLE_LEVELS).optional(),
  merge_access_level: g.intEnum(ROLE_LEVELS).optional(),
  allow_force_push: g.bool().default(false),
  ...eeShape,
});

export const updateProtectedBranchParams = params({
  id,
  name: g.string(),
  allow_force_push: g.bool().optional(),
  allowed_to_push: eeShape.allowed_to_push,
  allowed_to_merge: eeShape.allowed_to_merge,
  allowed_to_unprotect: eeShape.allowed_to_unprotect,
  code_owner_approval_required: eeShape.code_owner_approval_required,
});

export const deleteProtectedBranchParams = params({ id, name: g.string() });
