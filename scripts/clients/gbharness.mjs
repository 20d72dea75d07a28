// What every @gitbeaker/rest check script shares (the gitbeaker side of pyharness.py): a fetch that remembers the
// last exchange so a failing case can say what the server answered, the assertion helpers, `need` for values an
// earlier case left in `state`, `rejects` for an expected GitbeakerRequestError, and `testCase`, which prints
// `PASS <case>` or `FAIL <case> :: <reason>` (the lines scripts/test-clients.mjs reads).
import { GitbeakerRequestError } from '@gitbeaker/rest';

/** Values a case leaves for later cases. */
export const state = {};

// Remember the last exchange so that a failing case can say what the server answered.
let last = null;
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const req = input instanceof Request ? input : new Request(input, init);
  const res = await realFetch(input, init);
  let body = '';
  try {
    body = (await res.clone().text()).slice(0, 300).replace(/\n/g, ' ');
  } catch {
    // streamed body
  }
  const u = new globalThis.URL(req.url);
  last = `${req.method} ${u.pathname}${u.search} -> ${res.status} ${body}`;
  return res;
};

export class Fail extends Error {}
export const check = (cond, msg) => {
  if (!cond) throw new Fail(msg);
};
export const eq = (actual, expected, what) => {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Fail(`${what}: expected ${e}, got ${a}`);
};
export const need = (...names) => {
  const missing = names.filter((n) => !(n in state));
  if (missing.length) throw new Fail(`not run: needs ${missing.join(', ')} from an earlier case`);
  return names.map((n) => state[n]);
};

export async function rejects(status, fn, message) {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof GitbeakerRequestError)) throw new Fail(`expected GitbeakerRequestError ${status}, got ${err}`);
    eq(err.cause?.response?.status, status, 'status');
    if (message !== undefined) {
      check(String(err.cause?.description ?? err.message).includes(message), `error description ${JSON.stringify(err.cause?.description)} lacks ${JSON.stringify(message)}`);
    }
    return err;
  }
  throw new Fail(`expected HTTP ${status}, but the call succeeded`);
}

export async function testCase(name, fn) {
  last = null;
  try {
    await fn();
    console.log(`PASS ${name}`);
  } catch (err) {
    let reason = err instanceof Fail ? err.message : err instanceof GitbeakerRequestError ? `GitbeakerRequestError ${err.cause?.response?.status}: ${err.message}` : String(err?.stack ?? err);
    reason = reason.replace(/\n/g, ' ');
    if (last) reason += ` | last response: ${last}`;
    console.log(`FAIL ${name} :: ${reason}`);
  }
}
