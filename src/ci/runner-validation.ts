/** Ci::Runner's model validations, as GitLab words them (reference gitlab-behaviour-2.md 5.4). */

/** Ci::Runner::TAG_LIST_MAX_LENGTH. */
export const TAG_LIST_MAX = 50;
/** `maximum_timeout` is at least 10 minutes (or not set). */
export const MINIMUM_TIMEOUT = 600;
const TEXT_MAX = 1024;

export interface RunnerAttributes {
  description: string;
  maintenanceNote: string | null;
  runUntagged: boolean;
  tagList: string[];
  maximumTimeout: number | null;
}

/** The validation errors of a runner's attributes (`{}` when valid), in GitLab's order. */
export function runnerErrors(a: RunnerAttributes): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (a.description.length > TEXT_MAX) add('description', `is too long (maximum is ${TEXT_MAX} characters)`);
  if (a.maintenanceNote !== null && a.maintenanceNote.length > TEXT_MAX) add('maintenance_note', `is too long (maximum is ${TEXT_MAX} characters)`);
  // Ci::Runner#tag_constraints.
  if (!a.tagList.length && !a.runUntagged) add('tags_list', 'can not be empty when runner is not allowed to pick untagged jobs');
  if (a.tagList.length > TAG_LIST_MAX) add('tags_list', `Too many tags specified. Please limit the number of tags to ${TAG_LIST_MAX}`);
  if (a.maximumTimeout !== null && a.maximumTimeout < MINIMUM_TIMEOUT) add('maximum_timeout', 'needs to be at least 10 minutes');
  return errors;
}
