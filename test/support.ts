/**
 * Black-box test support: every piece of state is created through the API, as a client would,
 * with fresh names per call so tests never depend on each other or on fixed ids.
 */
import { fetchApi, rootToken, runtime } from '#harness';

export { fetchApi, rootToken, runtime };

export interface ApiOptions {
  method?: string;
  token?: string | null;
  /** Sent as JSON unless `form` or `multipart` is set. */
  body?: unknown;
  form?: Record<string, string | string[]>;
  multipart?: FormData;
  headers?: Record<string, string>;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Calls `/api/v4<path>` (or an absolute path starting with `/oauth`, `/users/sign_in`, …). */
export async function api<T = any>(path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers['PRIVATE-TOKEN'] = opts.token;
  let body: BodyInit | undefined;
  if (opts.multipart) body = opts.multipart;
  else if (opts.form) {
    const sp = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) for (const item of Array.isArray(v) ? v : [v]) sp.append(k, item);
    body = sp.toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  const url = path.startsWith('/api/') || path.startsWith('/oauth') || path.startsWith('/users/sign') || path.startsWith('/-/') ? path : `/api/v4${path}`;
  const res = await fetchApi(url, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

let counter = 0;
/** A name unique across test files and runs. */
export const unique = (prefix = 'u') => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export interface TestUser {
  id: number;
  username: string;
  email: string;
  name: string;
  password: string;
  token: string;
}

export interface NewUserOptions {
  admin?: boolean;
  scopes?: string[];
  attrs?: Record<string, unknown>;
}

/** Creates a user through POST /users and a personal access token through the admin token API. */
export async function createUser(opts: NewUserOptions = {}): Promise<TestUser> {
  const username = unique('user');
  const password = `Pw-${unique('p')}-long`;
  const res = await api('/users', {
    token: rootToken,
    body: { email: `${username}@example.com`, name: `User ${username}`, username, password, admin: opts.admin ?? false, skip_confirmation: true, ...(opts.attrs ?? {}) },
  });
  if (res.status !== 201) throw new Error(`createUser failed: ${res.status} ${res.text}`);
  const token = await createToken(res.body.id, opts.scopes ?? (opts.admin ? ['api', 'sudo', 'admin_mode'] : ['api']));
  return { id: res.body.id, username, email: `${username}@example.com`, name: res.body.name, password, token };
}

export async function createToken(userId: number, scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api(`/users/${userId}/personal_access_tokens`, { token: rootToken, body: { name: unique('tok'), scopes, ...extra } });
  if (res.status !== 201) throw new Error(`createToken failed: ${res.status} ${res.text}`);
  return res.body.token;
}

/**
 * Puts `changes` into the application settings and checks the answer echoes them. Settings are
 * instance-global, so with `fn` it runs `fn` and then puts the previous values back whatever
 * happened; without `fn` the caller owns the restore (settings that must hold for a whole describe
 * block, put back in its afterAll, perhaps with another token when the change locks root out).
 * Either way it returns the previous values of the changed keys.
 */
export async function withSettings(changes: Record<string, unknown>, fn?: () => Promise<void>): Promise<Record<string, unknown>> {
  const current = await api('/application/settings', { token: rootToken });
  if (current.status !== 200) throw new Error(`reading settings failed: ${current.status} ${current.text}`);
  const original = Object.fromEntries(Object.keys(changes).map((k) => [k, current.body[k]]));
  const res = await api('/application/settings', { method: 'PUT', token: rootToken, body: changes });
  if (res.status !== 200) throw new Error(`changing settings failed: ${res.status} ${res.text}`);
  for (const [k, v] of Object.entries(changes)) {
    if (JSON.stringify(res.body[k]) !== JSON.stringify(v)) throw new Error(`setting ${k} answered ${JSON.stringify(res.body[k])}, not ${JSON.stringify(v)}`);
  }
  if (!fn) return original;
  try {
    await fn();
  } finally {
    const back = await api('/application/settings', { method: 'PUT', token: rootToken, body: original });
    if (back.status !== 200) throw new Error(`restoring settings failed: ${back.status} ${back.text}`);
  }
  return original;
}
