/**
 * What issues and merge requests validate and filter alike (Issuable: title and description
 * validations, the assignee count and params; the assignee checks are in people-reads.ts). Epics
 * share the title limit.
 */
import { tooBig } from '../platform/text-limits';

export const TITLE_MAX = 255;
/** Issuable::DESCRIPTION_LENGTH_MAX (1.megabyte), a bytesize validation: it also keeps a row within D1's 2,000,000 bytes. */
export const DESCRIPTION_MAX = 1_048_576;
/** Issuable::MAX_NUMBER_OF_ASSIGNEES_OR_REVIEWERS. */
export const MAX_ASSIGNEES_OR_REVIEWERS = 200;
/**
 * Items `assignee_ids` / `reviewer_ids` take before the Grape `limit:` words answer: above the
 * model's 200, so a list of 201 to 1,000 ids gets GitLab's model message instead.
 */
export const ASSIGNEE_IDS_PARAM = { max: 1000 };

/** The title and description validations of Issuable (presence, length), by attribute. */
export function textErrors(f: { title?: string; description?: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (f.title !== undefined) {
    if (f.title.trim() === '') errors.title = ["can't be blank"];
    else if ([...f.title].length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
  }
  // `validates :description, bytesize: { maximum: -> { DESCRIPTION_LENGTH_MAX } }` (UTF-8 bytes, not characters).
  const long = f.description != null ? tooBig(f.description, DESCRIPTION_MAX) : null;
  if (long) errors.description = [long];
  return errors;
}

/**
 * Issuable#validate_assignee_size_length and MergeRequest#validate_reviewer_size_length:
 * `{"assignees":["total must be less than or equal to 200"]}`. GitLab counts the users left after
 * filtering; the distinct ids asked for are counted here, before the per-user checks, so a request
 * never makes more than 200 of them.
 */
export function assigneeCountErrors(lists: { assignees?: number[]; reviewers?: number[] }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const [attr, ids] of Object.entries(lists)) {
    if (ids && new Set(ids.filter((id) => id > 0)).size > MAX_ASSIGNEES_OR_REVIEWERS) errors[attr] = [`total must be less than or equal to ${MAX_ASSIGNEES_OR_REVIEWERS}`];
  }
  return errors;
}

/**
 * The assignee ids a request asks for, before the readability filter: `assignee_id` replaces
 * `assignee_ids` when given (CommonHelpers#convert_parameters_from_legacy_format; 0 is `present?`
 * in Ruby), and the free edition keeps only the first id (allows_multiple_assignees?).
 * undefined: the request names no assignees.
 */
export function requestedAssignees(p: { assignee_ids?: number[]; assignee_id?: number }, premium: boolean): number[] | undefined {
  const ids = p.assignee_id !== undefined ? [p.assignee_id] : p.assignee_ids;
  if (ids === undefined) return undefined;
  return premium ? ids : ids.slice(0, 1);
}
