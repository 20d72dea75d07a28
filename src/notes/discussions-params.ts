/**
 * Discussions API parameters (GitLab lib/api/discussions.rb). Each noteable kind names its parent
 * and noteable in its own path (`issue_iid`, `merge_request_iid`, `epic_id`, a commit's `sha`), so
 * each gets its own parameter sets from `discussionParams`.
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';

/** `optional :line_range, type: Hash`: its `start` and `end` points (line numbers arrive as strings). */
const linePoint = () =>
  z
    .object({ line_code: g.string().optional(), type: g.string().optional(), old_line: g.int().optional(), new_line: g.int().optional() })
    .optional()
    .meta({ grapeType: 'Hash', jsonType: 'object' });

/** `optional :position, type: Hash` with its required shas and position_type (Commit and MergeRequest only). */
export const positionParam = () =>
  z
    .object({
      base_sha: g.string(),
      start_sha: g.string(),
      head_sha: g.string(),
      position_type: g.enum(['text', 'image'] as const),
      new_path: g.string().optional(),
      new_line: g.int().optional(),
      old_path: g.string().optional(),
      old_line: g.int().optional(),
      width: g.int().optional(),
      height: g.int().optional(),
      x: g.int().optional(),
      y: g.int().optional(),
      line_range: z.object({ start: linePoint(), end: linePoint() }).optional().meta({ grapeType: 'Hash', jsonType: 'object' }),
    })
    .optional()
    .meta({ grapeType: 'Hash', jsonType: 'object' });

/** The parameter sets of one noteable kind: `noteable` is its path parameter (`requires :noteable_id`). */
export function discussionParams(noteable: string, noteableType: ReturnType<typeof g.int> | ReturnType<typeof g.string>, withPosition: boolean) {
  // The noteable's parameter is validated and passed on; routes read it through their kind's `ref`.
  const ref = { id: g.string(), [noteable]: noteableType } as { id: ReturnType<typeof g.string> };
  const discussion = { ...ref, discussion_id: g.string() };
  return {
    list: params({ ...ref, ...paginationParams }),
    one: params(discussion),
    create: params({ ...ref, body: g.string(), created_at: g.datetime().optional(), ...((withPosition ? { position: positionParam(), commit_id: g.string().optional() } : {}) as { position?: ReturnType<typeof positionParam>; commit_id?: ReturnType<typeof g.string> }) }),
    reply: params({ ...discussion, body: g.string(), created_at: g.datetime().optional() }),
    note: params({ ...discussion, note_id: g.int() }),
    // `exactly_one_of :body, :resolved`
    updateNote: params({ ...discussion, note_id: g.int(), body: g.string().optional(), resolved: g.bool().optional() }, [{ exactlyOneOf: ['body', 'resolved'] }]),
    resolve: params({ ...discussion, resolved: g.bool() }),
  };
}
