/** Workers bindings and variables (wrangler.toml). Node reads the same names from process.env. */
export interface Env {
  DB?: D1Database;
  /** A libSQL URL used instead of D1 when set (remote libSQL server). */
  LIBSQL_URL?: string;
  LIBSQL_AUTH_TOKEN?: string;
  BLOBS?: R2Bucket;
  JOBS?: Queue;
  RATE_LIMITER?: DurableObjectNamespace;
  /** Workers static assets: dist/assets, the API reference's browser bundle (wrangler.toml [assets]). */
  ASSETS?: Fetcher;
  /** Value of the root administrator's bootstrap personal access token (a secret in production). */
  ROOT_TOKEN?: string;
  ROOT_PASSWORD?: string;
  /** Salt mixed into token digests. */
  TOKEN_PEPPER?: string;
  /** free | premium | ultimate */
  INSTANCE_PLAN?: string;
  /** Public base URL used in web_url, _links and Link headers (GitLab's configured host). */
  EXTERNAL_URL?: string;
  /** The Geo node name of this instance (gitlab.rb `geo_node_name`); defaults to EXTERNAL_URL with a trailing slash. */
  GEO_NODE_NAME?: string;
  /** "false" disables impersonation tokens (gitlab.yml `impersonation_enabled`). */
  IMPERSONATION_ENABLED?: string;
  PASSWORD_HASH_ITERATIONS?: string;
  /** JSON object overriding rate-limit thresholds, e.g. {"users_get_by_id": 1}. */
  RATE_LIMITS?: string;
  OAUTH_TOKEN_TTL_SECONDS?: string;
  /** "true" checks every response against its route's declared schemas (the test suites; platform/response-check.ts). */
  VALIDATE_RESPONSES?: string;
  /** "true" adds `X-Storage-Round-Trips` to every response (the test suites and the benchmark; db/round-trips.ts). */
  REPORT_ROUND_TRIPS?: string;
  /** "true" also adds `X-Storage-Repeated-Reads` (the test suites; not the benchmark, whose CPU figures it would inflate). */
  REPORT_REPEATED_READS?: string;
  /** Base URL replacing AWS's S3 host for remote-import-s3 (an S3-compatible store; the tests' server). */
  S3_ENDPOINT?: string;
  /** Secret that webhook tokens are encrypted with (AES-GCM; `wrangler secret put WEBHOOK_TOKEN_KEY`). */
  WEBHOOK_TOKEN_KEY?: string;
}
