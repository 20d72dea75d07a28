import type { Env } from './env';

export type Plan = 'free' | 'premium' | 'ultimate';

/** Runtime configuration, resolved once per isolate/process from the environment. */
export interface Config {
  rootToken: string;
  rootPassword: string;
  tokenPepper: string;
  plan: Plan;
  externalUrl: string | null;
  /** gitlab.rb `geo_node_name`: the name of this instance's Geo node (default: the external URL with a trailing slash). */
  geoNodeName: string | null;
  impersonationEnabled: boolean;
  passwordIterations: number;
  rateLimits: Record<string, number>;
  oauthTokenTtl: number;
  /** Check responses against their declared schemas (test suites only). */
  validateResponses: boolean;
  /** Answer every request's storage round trips in `X-Storage-Round-Trips` (test suites and benchmark; db/round-trips.ts). */
  reportRoundTrips: boolean;
  /** Also count the reads a request sends twice, in `X-Storage-Repeated-Reads` (test suites only: it keys every statement). */
  reportRepeatedReads: boolean;
  /**
   * S3_ENDPOINT: an https base URL that replaces `https://<bucket>.s3.<region>.amazonaws.com` for
   * POST /projects/remote-import-s3 (an S3-compatible store, or the tests' server), addressed
   * path-style: `<endpoint>/<bucket>/<key>`. Null: AWS.
   */
  s3Endpoint: string | null;
  /** WEBHOOK_TOKEN_KEY: the secret webhook tokens are encrypted with (hooks/token-crypto.ts); null: a development key. */
  webhookTokenKey: string | null;
}

/** The documented local default for the root token (README). Production sets ROOT_TOKEN as a secret. */
export const DEV_ROOT_TOKEN = 'glpat-local-dev-root-token';
export const DEV_ROOT_PASSWORD = 'password-for-local-root-1';

export function loadConfig(env: Env): Config {
  const plan = (env.INSTANCE_PLAN ?? 'ultimate').toLowerCase();
  let rateLimits: Record<string, number> = {};
  if (env.RATE_LIMITS) {
    try {
      rateLimits = JSON.parse(env.RATE_LIMITS);
    } catch {
      throw new Error('RATE_LIMITS must be a JSON object');
    }
  }
  return {
    rootToken: env.ROOT_TOKEN || DEV_ROOT_TOKEN,
    rootPassword: env.ROOT_PASSWORD || DEV_ROOT_PASSWORD,
    tokenPepper: env.TOKEN_PEPPER ?? '',
    plan: plan === 'free' || plan === 'premium' ? plan : 'ultimate',
    externalUrl: env.EXTERNAL_URL ? env.EXTERNAL_URL.replace(/\/+$/, '') : null,
    geoNodeName: env.GEO_NODE_NAME || null,
    impersonationEnabled: env.IMPERSONATION_ENABLED !== 'false',
    passwordIterations: Number(env.PASSWORD_HASH_ITERATIONS ?? 100_000),
    rateLimits,
    oauthTokenTtl: Number(env.OAUTH_TOKEN_TTL_SECONDS ?? 7200),
    validateResponses: env.VALIDATE_RESPONSES === 'true',
    reportRoundTrips: env.REPORT_ROUND_TRIPS === 'true',
    reportRepeatedReads: env.REPORT_REPEATED_READS === 'true',
    s3Endpoint: env.S3_ENDPOINT ? env.S3_ENDPOINT.replace(/\/+$/, '') : null,
    webhookTokenKey: env.WEBHOOK_TOKEN_KEY || null,
  };
}
