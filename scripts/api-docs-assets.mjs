#!/usr/bin/env node
// Copies the API reference's browser bundle from node_modules into dist/assets, the Workers static
// assets directory (wrangler.toml [assets]). Run by wrangler's [build] step before `wrangler dev`
// and `wrangler deploy`, and by vitest.workers.config.ts. Node serves the file from node_modules
// directly (src/platform/assets.ts), so it needs no copy.
// Only this one file is copied: the package's dist/browser also holds ~230 lazy chunks of its ESM
// build (23 MB) that the page never loads.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Keep in step with SCALAR_BUNDLE in src/platform/api-docs.ts (the URL path is the file's path under dist/assets).
const pkg = '@scalar/api-reference';
const file = 'dist/browser/standalone.js';
const urlPath = '/-/api-docs/scalar.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// The package's exports map hides dist/browser, so resolve its entry point and walk to the package root.
const entry = createRequire(join(root, 'package.json')).resolve(pkg);
const source = join(entry.slice(0, entry.lastIndexOf(pkg) + pkg.length), file);
const target = join(root, 'dist/assets', urlPath);
mkdirSync(dirname(target), { recursive: true });
copyFileSync(source, target);
