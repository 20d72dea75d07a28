// @ts-check
/**
 * Dependency rules for src/ (`npm run lint:deps`; part of `npm test`).
 *
 * src/ holds one folder per domain. The domains form a chain, lowest first (DOMAINS below); a
 * domain may import itself and any lower domain, never a higher one. The files directly in src/
 * (app.ts, routes.ts, index.ts, node.ts, node-app.ts) are the composition root: they may import
 * any domain, and no domain imports them. Type-only imports count like any other import.
 *
 * test/platform/dependency-rules.node.test.ts runs these same rules on a fixture tree
 * (test/fixtures/depcruise/) and on src/.
 */

/**
 * The domain order, lowest first. The only place it is written: every rule below derives from it.
 * A new folder under src/ must be added here at its height (the `unlisted-domain` rule says so).
 * `features` (feature flags) sits low because every domain reads flags. ci, import-export,
 * deployments, dependencies and geo (wave 2) do not exist yet; their place is already fixed.
 */
const DOMAINS = [
  'db',
  'platform',
  'settings',
  'features',
  'users',
  'auth',
  'projects',
  'repository',
  'issuables',
  'planning',
  'issues',
  'merge-requests',
  'approvals',
  'notes',
  'todos',
  'ci',
  'import-export',
  'deployments',
  'dependencies',
  'geo',
  'hooks',
];

const ORDER = DOMAINS.join(' -> ');
const escape = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const folders = (/** @type {string[]} */ names) => `^src/(${names.map(escape).join('|')})/`;

const howToFix = (/** @type {string} */ domain) => {
  if (domain === 'db')
    return 'Instead: db/ imports nothing from src/ outside db/; move what it needs into db/, or move the code that needs the higher domain up into it.';
  const down = domain === 'platform' ? 'into platform/ or db/' : `into ${domain}/ itself or a lower domain (platform/ for what every domain uses)`;
  return (
    `Instead: move what src/${domain}/ needs down, ${down}; or turn the dependency around with an ` +
    `extension point that src/${domain}/ declares, the higher domain implements and src/app.ts installs ` +
    '(platform/extension.ts: extensionPoint, hookList; platform/cascade.ts for what goes with a deleted ' +
    'row). See README, architecture.'
  );
};

/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const domainOrderRules = DOMAINS.slice(0, -1).map((domain, i) => {
  const higher = DOMAINS.slice(i + 1);
  return {
    name: `no-upward-import-from-${domain}`,
    severity: 'error',
    comment:
      `src/${domain}/ imports a higher domain. A domain may import itself and lower domains only; ` +
      `the order, lowest first: ${ORDER}. ${howToFix(domain)}`,
    from: { path: folders([domain]) },
    to: { path: folders(higher) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'This import closes a circle of imports (type-only imports count). Break it: move what both ' +
        `files need into a third, lower file, or invert one direction through an extension point ` +
        '(platform/extension.ts).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...domainOrderRules,
    {
      name: 'no-import-of-composition-root',
      severity: 'error',
      comment:
        'A domain imports a file directly in src/ (app.ts, routes.ts, index.ts, node.ts, node-app.ts): ' +
        'the composition root imports the domains, never the reverse. Move what the domain needs into ' +
        `the domain itself or a lower one, or have src/app.ts install it through an extension point ` +
        `(platform/extension.ts). Domain order, lowest first: ${ORDER}.`,
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+$' },
    },
    {
      name: 'unlisted-domain',
      severity: 'error',
      comment:
        'This import reaches a folder of src/ that is not in DOMAINS of .dependency-cruiser.cjs, so no ' +
        'order rule covers it. Add the folder to DOMAINS at its height (lowest first: ' +
        `${ORDER}), or move the file into an existing domain.`,
      from: {},
      to: { path: '^src/[^/]+/', pathNot: folders(DOMAINS) },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'This import does not resolve to a file, an installed npm package or a built-in module. Fix the ' +
        'path (or install the package).',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Only src/ is checked: npm packages are leaves (resolved, never read), and test/ and scripts/
    // are never cruised, even when named on the command line.
    doNotFollow: { path: ['node_modules', '^(test|scripts)/'] },
    moduleSystems: ['es6', 'cjs'],
    // Also the imports TypeScript erases (`import type`, `import { type X }`, `import('...').T`).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // workerd's own modules are built-ins like node:*.
    builtInModules: { add: ['cloudflare:workers'] },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
