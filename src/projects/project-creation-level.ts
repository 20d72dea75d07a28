/**
 * Who may create projects in a group. A group created without `project_creation_level` stores none
 * (GitLab: nil) and follows the instance's `default_project_creation` at every check, so a PUT of
 * that setting changes every such group at once (Group#project_creation_level: `super ||
 * Gitlab::CurrentSettings.default_project_creation`). The column is NOT NULL, so "none" is ''.
 */
import { ACCESS } from './abilities';

/** Gitlab::Access *_PROJECT_ACCESS by value, as Group#project_creation_level_str names them. */
const NAMES_BY_SETTING = ['noone', 'maintainer', 'developer', 'administrator', 'owner'];

/** Stored for a new group created without a level: inherit the instance setting. */
export const INHERIT_PROJECT_CREATION = '';

/** The group's effective level name: its own, else the instance's `default_project_creation`. */
export function projectCreationLevelName(stored: string | null | undefined, settings: Record<string, unknown>): string {
  if (stored) return stored;
  return NAMES_BY_SETTING[Number(settings.default_project_creation ?? 2)] ?? 'developer';
}

/** The least group access that may create projects at `level` (Infinity: administrators only). */
export function projectCreationAccess(level: string): number {
  return ({ owner: ACCESS.OWNER, maintainer: ACCESS.MAINTAINER, developer: ACCESS.DEVELOPER } as Record<string, number>)[level] ?? Infinity;
}
