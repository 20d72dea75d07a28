/**
 * Milestones API parameters (GitLab lib/api/milestone_responses.rb, project_milestones.rb,
 * group_milestones.rb).
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';

const id = g.string();

const IIDS_MAX = 1000;

/** CommaSeparatedToIntegerArray: `1,2`, `iids[]=1&iids[]=2` or a JSON array; anything not an integer is invalid. */
const intList = () =>
  z
    .unknown()
    .transform((v, ctx): number[] => {
      const items = (Array.isArray(v) ? v : [v]).flatMap((s) => (typeof s === 'string' ? s.split(',') : [s])).filter((s) => s !== '');
      // As issue and merge request `iids` (issue-lists-params.ts): far past any page a client asks for.
      if (items.length > IIDS_MAX) {
        ctx.addIssue({ code: 'custom', message: `must contain at most ${IIDS_MAX} items`, input: v });
        return z.NEVER;
      }
      const out: number[] = [];
      for (const s of items) {
        const n = typeof s === 'number' ? s : typeof s === 'string' && /^\s*[+-]?\d+\s*$/.test(s) ? Number(s) : NaN;
        if (!Number.isSafeInteger(n)) {
          ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
          return z.NEVER;
        }
        out.push(n);
      }
      return out;
    })
    .meta({ grapeType: 'Array[Integer]', jsonType: 'array' });

const listShape = {
  id,
  state: g.enum(['active', 'closed', 'all'] as const).default('all'),
  iids: intList().optional(),
  title: g.string().optional(),
  search: g.search().optional(),
  include_parent_milestones: g.bool().optional(),
  include_ancestors: g.bool().optional(),
  updated_before: g.datetime().optional(),
  updated_after: g.datetime().optional(),
  ...paginationParams,
};
const listRules = [{ mutuallyExclusive: ['include_ancestors', 'include_parent_milestones'] }];

export const listProjectMilestonesParams = params(listShape, listRules);
export const listGroupMilestonesParams = params({ ...listShape, include_descendants: g.bool().optional() }, listRules);

export const milestoneIdParams = params({ id, milestone_id: g.int() });
export const milestoneItemsParams = params({ id, milestone_id: g.int(), ...paginationParams });

/** `optional_params`: dates are Strings in the API; the model casts them (an unparseable date becomes nil). */
const optionalShape = {
  description: g.string().optional(),
  due_date: g.string().optional(),
  start_date: g.string().optional(),
};

export const createMilestoneParams = params({ id, title: g.string(), ...optionalShape });

export const updateMilestoneParams = params(
  {
    id,
    milestone_id: g.int(),
    title: g.string().optional(),
    state_event: g.enum(['close', 'activate'] as const).optional(),
    ...optionalShape,
  },
  // `at_least_one_of` is checked in the handler: Grape counts a key sent as null (`"due_date": null` clears it).
);
