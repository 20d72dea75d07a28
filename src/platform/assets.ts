/**
 * The `StaticAssets` port: files this server ships from npm packages (the API reference's browser
 * bundle, platform/api-docs.ts), looked up by URL path. Workers static assets here; the package files
 * themselves on Node (platform/package-assets.ts).
 */
export type StaticAssets = (request: Request) => Promise<Response>;

/**
 * The [assets] binding of wrangler.toml: dist/assets, filled from node_modules by
 * scripts/api-docs-assets.mjs with each file at its URL path. It answers 404 for anything else and
 * 304 to a matching If-None-Match.
 */
export const workerAssets =
  (binding: Fetcher): StaticAssets =>
  (request) =>
    binding.fetch(request);
