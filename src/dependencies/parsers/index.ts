/**
 * Every lockfile format the scanner reads (src/dependencies/scanner.ts). The JavaScript ones are
 * here; the other ecosystems' (`MORE_FORMATS`, parsers/more-formats.ts) join them in this list.
 */
import { packageLock } from './package-lock';
import { pnpmLock } from './pnpm-lock';
import type { LockfileFormat } from './types';
import { yarnLock } from './yarn-lock';

export const LOCKFILE_FORMATS: LockfileFormat[] = [packageLock, yarnLock, pnpmLock];

/** The format of a repository path, if it is a lockfile. */
export const formatOf = (path: string): LockfileFormat | undefined => LOCKFILE_FORMATS.find((f) => f.matches(path));
