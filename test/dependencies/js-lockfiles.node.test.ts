/**
 * The JavaScript lockfile parsers (src/dependencies/parsers/) on lockfiles as npm, Yarn and pnpm
 * write them: every lockfile version, the entries that are the project's own code (root, workspaces,
 * links) left out, and a broken file read as nothing rather than an error.
 */
import { describe, expect, it } from 'vitest';
import { formatOf, LOCKFILE_FORMATS } from '../../src/dependencies/parsers';
import { parsePackageLock } from '../../src/dependencies/parsers/package-lock';
import { parsePnpmLock } from '../../src/dependencies/parsers/pnpm-lock';
import { parseYarnLock } from '../../src/dependencies/parsers/yarn-lock';
import { PACKAGE_LOCK_V1, PACKAGE_LOCK_V3, PNPM_V5, PNPM_V6, PNPM_V9, YARN_BERRY, YARN_V1 } from './lockfiles';

const pairs = (list: { name: string; version: string }[]) => list.map((d) => `${d.name}@${d.version}`).sort();

describe('package-lock.json', () => {
  it('v1: the nested dependencies tree, each pin once', () => {
    expect(pairs(parsePackageLock(PACKAGE_LOCK_V1))).toEqual(['@babel/code-frame@7.12.13', 'js-tokens@4.0.0', 'lodash@4.17.20', 'minimist@0.0.8', 'minimist@1.2.5', 'mkdirp@0.5.1']);
  });

  it('v2 and v3: the packages map, without the root, workspace folders and links', () => {
    expect(pairs(parsePackageLock(PACKAGE_LOCK_V3))).toEqual(['@types/node@20.11.5', 'lodash@4.17.21', 'minimist@1.2.8', 'undici-types@5.26.5']);
    // v2 carries both shapes; the packages map wins (the tree here disagrees on purpose).
    const v2 = JSON.parse(PACKAGE_LOCK_V3);
    v2.lockfileVersion = 2;
    v2.dependencies = { lodash: { version: '1.0.0' } };
    expect(pairs(parsePackageLock(JSON.stringify(v2)))).toEqual(['@types/node@20.11.5', 'lodash@4.17.21', 'minimist@1.2.8', 'undici-types@5.26.5']);
  });
});

describe('yarn.lock', () => {
  it('v1: one entry per resolved version, named from its descriptors', () => {
    expect(pairs(parseYarnLock(YARN_V1))).toEqual(['@babel/helper-validator-identifier@7.22.20', 'lodash@4.17.21', 'minimist@0.2.1', 'minimist@1.2.8']);
  });

  it('berry: __metadata and the workspaces are left out, patches name their package', () => {
    expect(pairs(parseYarnLock(YARN_BERRY))).toEqual(['@types/node@20.11.5', 'lodash@4.17.15', 'resolve@1.22.8']);
  });
});

describe('pnpm-lock.yaml', () => {
  it('reads the key shapes of lockfile versions 5, 6 and 9, peers stripped', () => {
    expect(pairs(parsePnpmLock(PNPM_V5))).toEqual(['@babel/core@7.12.3', 'lodash@4.17.20', 'react-dom@17.0.2', 'react@17.0.2']);
    expect(pairs(parsePnpmLock(PNPM_V6))).toEqual(['@babel/core@7.23.7', 'lodash@4.17.21', 'react-dom@18.2.0', 'react@18.2.0']);
    expect(pairs(parsePnpmLock(PNPM_V9))).toEqual(['@babel/core@7.24.0', 'is-even@1.0.0', 'minimist@1.2.8']);
  });
});

describe('the registry', () => {
  it('finds each format at any depth, and nothing else', () => {
    expect(LOCKFILE_FORMATS.map((f) => f.packageManager)).toEqual(expect.arrayContaining(['npm', 'yarn', 'pnpm']));
    expect(formatOf('package-lock.json')?.packageManager).toBe('npm');
    expect(formatOf('web/app/yarn.lock')?.packageManager).toBe('yarn');
    expect(formatOf('pnpm-lock.yaml')?.packageManager).toBe('pnpm');
    expect(formatOf('not-package-lock.json.bak')).toBeUndefined();
    expect(formatOf('mypackage-lock.json')).toBeUndefined();
  });

  it('a broken file is read as nothing, never an exception', () => {
    for (const f of LOCKFILE_FORMATS) for (const text of ['', '{', '\u0000\u0001', ':\n  - [', 'null', '[]']) expect(f.parse(text)).toEqual([]);
  });
});
