/**
 * The contract every lockfile parser in this folder meets, so the scanner (src/dependencies/) can
 * treat them alike: a parser is a pure function from the file's text to the packages it pins.
 * It never touches storage and never throws on a malformed file: it returns what it could read
 * (possibly nothing), because one broken lockfile must not fail the push that committed it.
 */
export interface ParsedDependency {
  /** The package's name as its ecosystem writes it (`@scope/pkg`, `github.com/a/b`, `group/artifact` (GitLab joins a package URL's namespace and name with `/`)). */
  name: string;
  /** The resolved version pinned by the lockfile (never a range). */
  version: string;
}

/** One lockfile format: which files it reads and what GitLab calls their package manager. */
export interface LockfileFormat {
  /** GitLab's `package_manager` value for entries from this file (e.g. `npm`, `yarn`, `bundler`). */
  packageManager: string;
  /** True when a repository path (any depth, e.g. `web/package-lock.json`) is this format's file. */
  matches(path: string): boolean;
  parse(text: string): ParsedDependency[];
}
