/**
 * Answers given before the app's router (and on Node before the web Request is built): a hot,
 * side-effect-free case a domain can answer from what it holds in memory (ci/runner-poll-first.ts:
 * a known runner's cached poll). The runtimes' entry points offer each request to it first:
 * `answerEarlyInFetch` wraps the app's fetch (both runtimes), node-server.ts asks before building
 * the web Request. Whatever it declines goes to the app unchanged, with the body it read.
 */
import type { Hono } from 'hono';

export interface EarlyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** `name` is lower case; the value as a web Headers would give it, or null/undefined when absent. */
export type HeaderOf = (name: string) => string | null | undefined;

export interface EarlyAnswers {
  /** Whether a request may be answered early, from its line and headers; its body is then read first. */
  wants(method: string, path: string, urlLength: number, header: HeaderOf): boolean;
  /** The answer, or undefined when the app must answer. `env` is the runtime's (Node: `{ incoming }`). */
  answer(path: string, header: HeaderOf, env: unknown, body: Uint8Array): EarlyAnswer | undefined;
}

type Fetch = Hono['fetch'];

/** The path and query of an absolute URL. */
const pathOf = (url: string) => url.slice(url.indexOf('/', url.indexOf('//') + 2));

/** Offers every request to `early` before the app's own fetch (Hono's router, context and middleware). */
export function answerEarlyInFetch(app: { fetch: Fetch }, early: EarlyAnswers): void {
  const inner = app.fetch;
  app.fetch = (req, env, ctx) => {
    const path = pathOf(req.url);
    const header = (name: string) => req.headers.get(name);
    if (!early.wants(req.method, path, req.url.length, header)) return inner(req, env, ctx);
    return req.arrayBuffer().then(
      (buffer) => {
        const body = new Uint8Array(buffer);
        let a: EarlyAnswer | undefined;
        try {
          a = early.answer(path, header, env, body);
        } catch {
          // The app answers (and reports) what went wrong.
          a = undefined;
        }
        if (a) return new Response(a.body, { status: a.status, headers: a.headers });
        // The app reads the body again from a request that carries it.
        return inner(new Request(req.url, { method: req.method, headers: req.headers, body }), env, ctx);
      },
      // The app's own read fails the same way and answers it.
      () => inner(req, env, ctx),
    );
  };
}
