/**
 * The secret sweep: every response a test file receives is recorded, and when the file ends no
 * response may carry a secret outside the one response that created it.
 *
 * It cannot go stale because it never lists secrets by hand:
 * - Secrets handed to a client are found in the responses themselves: any string in a JSON field
 *   named like a secret (`token`, `access_token`, `refresh_token`, `secret`, …), any cookie value
 *   set by the server and a session's CSRF token header. The first response that shows one
 *   created it; no other may show it.
 * - Secrets kept by the server are read from storage: every value of a column whose name says it
 *   holds a digest or a secret (`*_digest`, `*secret*`, found from the schema at sweep time). No
 *   response may ever show them.
 * - Passwords a test sent (any `password` field of a request body) are never shown by any response.
 * - A response may show a secret its own request sent (POST /runners/verify answers the runner's
 *   token, as GitLab does): the client already holds it.
 */

/** JSON keys whose string values are secrets handed out once (GitLab's `*WithToken` entities, OAuth, runners). */
const SECRET_KEY = /^(token|access_token|refresh_token|id_token|secret|client_secret|runners_token|registration_token|incoming_email_token|feed_token|static_object_token)$/;
/** Storage columns that hold secrets or their digests. */
export const SECRET_COLUMN = /digest|secret|encrypted/i;
/** Shorter strings are not secrets this server makes (digests and tokens are 20+ characters). */
const MIN_SECRET = 12;

interface Recorded {
  where: string;
  text: string;
  /** Secrets its request carried (a `token` field, a token header). */
  sent: Set<string>;
}

/** The secrets a request carries: secret-named fields of its body and its token headers. */
function sentSecrets(init: RequestInit | undefined): Set<string> {
  const out = new Set<string>();
  const add = (v: unknown) => typeof v === 'string' && v.length >= MIN_SECRET && out.add(v);
  const body = init?.body;
  if (typeof body === 'string') {
    try {
      walk(JSON.parse(body), (k, v) => SECRET_KEY.test(k) && add(v));
    } catch {
      for (const [k, v] of new URLSearchParams(body)) if (SECRET_KEY.test(k)) add(v);
    }
  }
  for (const [k, v] of new Headers(init?.headers)) if (/^(runner-token|private-token|job-token)$/.test(k)) add(v);
  return out;
}

export class SecretSweep {
  private responses: Recorded[] = [];
  /** Secret value → index of the response that created it. */
  private created = new Map<string, number>();
  private passwords = new Set<string>();

  /** Notes the passwords a request sends (JSON or form body). */
  recordRequest(init: RequestInit | undefined): void {
    const body = init?.body;
    if (typeof body !== 'string') return;
    const add = (v: unknown) => typeof v === 'string' && v.length >= 8 && this.passwords.add(v);
    try {
      walk(JSON.parse(body), (k, v) => /password/.test(k) && add(v));
    } catch {
      for (const [k, v] of new URLSearchParams(body)) if (/password/.test(k)) add(v);
    }
  }

  /** Records a response (its headers and, unless binary, its body); the response itself is not consumed. */
  async recordResponse(method: string, url: string, res: Response, init?: RequestInit): Promise<void> {
    const type = res.headers.get('content-type') ?? '';
    const binary = /gzip|zip|octet-stream|image\/|tar/.test(type);
    const body = binary || res.body === null ? '' : await res.clone().text();
    const headers = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
    const index = this.responses.length;
    this.responses.push({ where: `${method} ${new URL(url, 'http://localhost').pathname} → ${res.status}`, text: `${headers}\n\n${body}`, sent: sentSecrets(init) });
    const found: string[] = [];
    // The API documentation (`/-/openapi.json`, `/-/api-docs`) shows placeholder tokens in its examples: checked, never harvested.
    if (new URL(url, 'http://localhost').pathname.startsWith('/-/')) return;
    if (type.includes('json') && body) {
      try {
        walk(JSON.parse(body), (k, v) => SECRET_KEY.test(k) && typeof v === 'string' && v.length >= MIN_SECRET && found.push(v));
      } catch {
        // Not JSON after all: only the header secrets count.
      }
    }
    for (const cookie of res.headers.getSetCookie?.() ?? []) {
      const value = /^[^=]+=([^;]*)/.exec(cookie)?.[1];
      if (value && value.length >= MIN_SECRET) found.push(value);
    }
    const csrf = res.headers.get('x-csrf-token');
    if (csrf && csrf.length >= MIN_SECRET) found.push(csrf);
    for (const s of found) if (!this.created.has(s)) this.created.set(s, index);
  }

  /** The leaks among everything recorded, given the secret values storage holds now. */
  problems(stored: Iterable<string>): string[] {
    const out: string[] = [];
    this.responses.forEach((r, i) => {
      for (const [secret, at] of this.created) {
        if (i !== at && !r.sent.has(secret) && r.text.includes(secret)) out.push(`${r.where} shows a secret created by ${this.responses[at].where}`);
      }
      for (const p of this.passwords) if (r.text.includes(p)) out.push(`${r.where} shows a password a request sent`);
    });
    for (const s of stored) {
      if (s.length < MIN_SECRET) continue;
      for (const r of this.responses) if (r.text.includes(s)) out.push(`${r.where} shows a stored secret or digest`);
    }
    return [...new Set(out)];
  }

  get size(): number {
    return this.responses.length;
  }

  reset(): void {
    this.responses = [];
    this.created.clear();
    this.passwords.clear();
  }
}

function walk(value: unknown, visit: (key: string, v: unknown) => void): void {
  if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

/** Reads every secret column's values through `query` (one SQL text in, rows out): the tables and columns come from the schema. */
export async function storedSecrets(query: (sql: string) => Promise<Record<string, unknown>[]>): Promise<string[]> {
  const tables = await query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'd1_%'`);
  const out: string[] = [];
  for (const { name } of tables) {
    const columns = (await query(`SELECT name FROM pragma_table_info('${String(name).replace(/'/g, "''")}')`)).map((r) => String(r.name)).filter((c) => SECRET_COLUMN.test(c));
    for (const col of columns) {
      for (const row of await query(`SELECT "${col}" AS v FROM "${name}" WHERE "${col}" IS NOT NULL`)) if (typeof row.v === 'string') out.push(row.v);
    }
  }
  return out;
}

/** One sweep per test file (module instance), shared by the harness that records and the setup that checks. */
export const sweep = new SecretSweep();

type Query = (sql: string) => Promise<Record<string, unknown>[]>;
let storage: Query | undefined;
/** The harness names the storage its app writes to; files that never load the harness have nothing to sweep. */
export const sweepStorage = (query: Query) => {
  storage = query;
};

/** Called once per test file, after its last test: throws naming every leak. */
export async function checkSweep(): Promise<void> {
  if (!storage || sweep.size === 0) return;
  const leaks = sweep.problems(await storedSecrets(storage));
  sweep.reset();
  if (leaks.length) throw new Error(`secret sweep: ${leaks.length} response(s) leak secrets:\n${leaks.slice(0, 20).join('\n')}`);
}
