/**
 * The dependency rules of `.dependency-cruiser.cjs` (`npm run lint:deps`) keep catching what they
 * are meant to: run through dependency-cruiser's API with that very file, on a fixture tree
 * (test/fixtures/depcruise/src, each file says which rule it trips) and on the real src/.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult, type IReporterOutput } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = `${ROOT}.dependency-cruiser.cjs`;
const FIXTURE = `${ROOT}test/fixtures/depcruise`;

let options: ICruiseOptions;
let tsConfig: ReturnType<typeof extractTSConfig>;

/** Cruises `src` under baseDir with the options and rules of .dependency-cruiser.cjs, as the CLI does. */
function cruiseSrc(baseDir: string, outputType?: 'err-long'): Promise<IReporterOutput> {
  return cruise(['src'], { ...options, baseDir, ...(outputType ? { outputType } : {}) }, {}, { tsConfig });
}

const violationsOf = (result: ICruiseResult) =>
  result.summary.violations.map((v) => ({ rule: v.rule.name, severity: v.rule.severity, from: v.from, to: v.to }));

beforeAll(async () => {
  options = await extractDepcruiseOptions(CONFIG);
  // The CLI reads options.tsConfig.fileName relative to its working directory (the repo root).
  tsConfig = extractTSConfig(`${ROOT}tsconfig.json`);
});

describe('dependency rules on the fixture tree', () => {
  let result: ICruiseResult;
  beforeAll(async () => {
    result = (await cruiseSrc(FIXTURE)).output as ICruiseResult;
  }, 30_000);

  it('reports an upward import with the rule and both files, type-only imports included', () => {
    const upward = violationsOf(result).filter((v) => v.rule === 'no-upward-import-from-platform');
    expect(upward).toEqual(
      expect.arrayContaining([
        { rule: 'no-upward-import-from-platform', severity: 'error', from: 'src/platform/upward.ts', to: 'src/issues/issue.ts' },
        { rule: 'no-upward-import-from-platform', severity: 'error', from: 'src/platform/upward-type.ts', to: 'src/issues/issue.ts' },
      ]),
    );
    expect(upward).toHaveLength(2);
  });

  it('reports the circle', () => {
    const circular = result.summary.violations.filter((v) => v.rule.name === 'no-circular');
    expect(circular.length).toBeGreaterThan(0);
    for (const v of circular) {
      expect(v.rule.severity).toBe('error');
      expect(v.cycle?.map((step) => step.name).sort()).toEqual(['src/notes/circle-a.ts', 'src/notes/circle-b.ts']);
    }
  });

  it('reports a domain importing the composition root', () => {
    expect(violationsOf(result)).toContainEqual({ rule: 'no-import-of-composition-root', severity: 'error', from: 'src/users/root.ts', to: 'src/app.ts' });
  });

  it('reports nothing else: downward imports, the composition root, npm packages and node: builtins pass', () => {
    const reported = new Set(violationsOf(result).map((v) => `${v.from} -> ${v.to}`));
    for (const allowed of ['src/issues/issue.ts -> src/platform/base.ts', 'src/app.ts -> src/issues/issue.ts', 'src/app.ts -> src/platform/base.ts']) {
      expect(reported).not.toContain(allowed);
    }
    const issue = result.modules.find((m) => m.source === 'src/issues/issue.ts');
    const kinds = issue?.dependencies.map((d) => [d.module, d.couldNotResolve, d.dependencyTypes[0]]);
    expect(kinds?.sort()).toEqual([
      ['../platform/base', false, 'local'],
      ['hono', false, 'npm'],
      ['path', false, 'core'], // node:path
    ]);
    expect(new Set(result.summary.violations.map((v) => v.rule.name))).toEqual(
      new Set(['no-upward-import-from-platform', 'no-circular', 'no-import-of-composition-root']),
    );
  });

  it('prints both files and the rule in the err-long report of npm run lint:deps', async () => {
    const { output, exitCode } = await cruiseSrc(FIXTURE, 'err-long');
    expect(exitCode).toBe(4);
    expect(output).toContain('error no-upward-import-from-platform: src/platform/upward.ts → src/issues/issue.ts');
    expect(output).toMatch(/error no-circular: src\/notes\/circle-[ab]\.ts →\s+src\/notes\/circle-[ab]\.ts →\s+src\/notes\/circle-[ab]\.ts/);
    // The rule's comment (wrapped at 80 columns) tells the order and what to do instead.
    expect(String(output).replace(/\s+/g, ' ')).toContain('the order, lowest first: db -> platform -> settings -> features -> users -> auth');
  });
});

describe('the domain order of the rules', () => {
  const forbids = (from: string, to: string) =>
    (options.ruleSet?.forbidden ?? []).some(
      (r) => r.name?.startsWith('no-upward-import-from-') && 'from' in r && 'to' in r && new RegExp(String(r.from.path)).test(`src/${from}/x.ts`) && new RegExp(String(r.to.path)).test(`src/${to}/x.ts`),
    );

  it('puts features right above settings, and the wave-2 domains above todos', () => {
    expect([forbids('settings', 'features'), forbids('features', 'settings')]).toEqual([true, false]);
    expect([forbids('features', 'users'), forbids('users', 'features')]).toEqual([true, false]);
    expect([forbids('todos', 'ci'), forbids('ci', 'import-export'), forbids('deployments', 'geo'), forbids('geo', 'db')]).toEqual([true, true, true, false]);
    expect([forbids('db', 'platform'), forbids('platform', 'db'), forbids('issues', 'issues')]).toEqual([true, false, false]);
  });
});

describe('dependency rules on src/', () => {
  it('find no violation, having cruised every source file', async () => {
    const result = (await cruiseSrc(ROOT)).output as ICruiseResult;
    expect(violationsOf(result)).toEqual([]);
    const sources = readdirSync(`${ROOT}src`, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(result.modules.filter((m) => m.source.startsWith('src/')).length).toBe(sources.length);
  }, 30_000);
});
