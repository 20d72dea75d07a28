/**
 * Every lockfile format the scanner reads (src/dependencies/scanner.ts): the JavaScript ones here,
 * the other ecosystems' from parsers/more-formats.ts.
 */
import { MORE_FORMATS } from './more-formats';
import { packageLock } from './package-lock';
import { pnpmLock } from './pnpm-lock';
import type { LockfileFormat } from './types';
import { yarnLock } from './yarn-lock';

export const LOCKFILE_FORMATS: LockfileFormat[] = [packageLock, yarnLock, pnpmLock, ...MORE_FORMATS];

/** The format of a repository path, if it is a lockfile. */
export const formatOf = (path: string): LockfileFormat | undefined => LOCKFILE_FORMATS.find((f) => f.matches(path));
