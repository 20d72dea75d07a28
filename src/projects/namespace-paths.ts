/** Free namespace paths, as GitLab suggests them (Namespace.clean_path with Gitlab::Utils::Uniquify). Pure. */

/**
 * Namespace.clean_path's cleaning: the part before an `@`, only `[a-zA-Z0-9_.-]`, no trailing `.git`,
 * `.atom` or `.`, no leading `-`; `blank` when nothing is left.
 */
export function cleanPath(input: string): string {
  let path = input.replace(/@.*$/s, '').replace(/[^a-zA-Z0-9_\-.]/g, '');
  for (;;) {
    const before = path;
    path = path.replace(/\.git$/, '').replace(/\.atom$/, '').replace(/\.$/, '');
    if (path === before) break;
  }
  path = path.replace(/^-+/, '');
  return path || 'blank';
}

/**
 * Uniquify#string: the base, then base1, base2, … until no namespace among `taken` has it as its path
 * or name (`find_by_path_or_name`, case-insensitive). `taken` holds lowercased paths and names.
 */
export function suggestPath(base: string, taken: { path: string; name: string }[]): string {
  const used = new Set(taken.flatMap((t) => [t.path, t.name]));
  for (let n = 0; ; n++) {
    const candidate = `${base}${n || ''}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}
