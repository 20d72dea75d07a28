#!/usr/bin/env node
/**
 * Rewrites test/platform/round-trip-debt.ts from a report of round-trip-budget.test.ts
 * (`ROUND_TRIP_REPORT=/tmp/r.json npx vitest run --config vitest.node.config.ts test/platform/round-trip-budget.test.ts`):
 * entries now within budget leave, the others keep their count (a report comes from one runtime,
 * and D1 may take one more than libSQL where a route's work depends on timing). It never adds a
 * route: a route not in the list must fit the budget.
 *
 * Usage: node scripts/round-trip-debt.mjs /tmp/r.json
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../test/platform/round-trip-debt.ts', import.meta.url);
const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const text = readFileSync(file, 'utf8');
const head = text.slice(0, text.indexOf('{\n') + 2);
// What follows the list (PAGE_SIZE_DEBT) is kept as it is.
const tail = text.slice(text.indexOf('\n};\n') + 4);
const entries = [...text.matchAll(/^ {2}'([^']+)': (\d+),$/gm)].map((m) => [m[1], Number(m[2])]);
const over = (key, m) => (key.startsWith('GET ') ? m.first > 3 || (m.second ?? 0) > 2 : m.first > 3);
const kept = [];
for (const [key, debt] of entries) {
  const m = report[key];
  if (!m) kept.push([key, debt]);
  else if (over(key, m)) kept.push([key, debt]);
}
writeFileSync(file, `${head}${kept.map(([k, n]) => `  '${k}': ${n},`).join('\n')}\n};\n${tail}`);
console.log(`${entries.length} -> ${kept.length} routes over budget`);
