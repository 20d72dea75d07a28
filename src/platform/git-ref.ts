/**
 * `git check-ref-format --branch`: the one place branch names are judged (new branches, commits,
 * merge request branches, the instance's default branch name).
 */

// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARS = /[\x00-\x20\x7f~^:?*[\\]/;
/** A loose ref is a file under refs/heads: each component a file name, the whole a path. */
const COMPONENT_MAX_BYTES = 255;
const PATH_MAX_BYTES = 4000;
const encoder = new TextEncoder();

/** Gitlab::Git.check_ref_format: git's rules for a branch name (one level allowed). */
export function isValidBranchName(name: string): boolean {
  if (!name || name === '@' || name === 'HEAD') return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  if (FORBIDDEN_CHARS.test(name)) return false;
  if (name.length > PATH_MAX_BYTES || encoder.encode(name).byteLength > PATH_MAX_BYTES) return false;
  return !name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock') || encoder.encode(part).byteLength > COMPONENT_MAX_BYTES);
}
