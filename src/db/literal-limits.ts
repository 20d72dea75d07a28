/**
 * LIMIT and OFFSET values written into a D1 statement's text instead of bound (issue 13, workerd profile).
 *
 * Why: the SQLite inside workerd and D1 (3.5x) lets a bound LIMIT or OFFSET value shape the query
 * plan, so it marks a statement that binds one to be compiled again whenever that parameter is bound
 * (sqlite3ExprIsInteger → sqlite3VdbeSetVarmask; every `bind` counts, even of the same value). Drizzle
 * binds every `.limit()` / `.offset()`, and a list's reads hang off its page query, so every statement
 * of a list request (and every `.limit(1)` lookup) was parsed and planned anew on each run: 15 % of the
 * workerd process's CPU on the project issue list (perf), for statements D1 had cached. An integer in
 * the text costs nothing of the kind; the text then differs per page size and offset, which the
 * database's own statement cache holds like any other text. libSQL (3.45) does not recompile for
 * LIMIT, so Node keeps the bound form.
 *
 * Only `?` parameters right after the keywords LIMIT or OFFSET (outside quotes and comments) whose
 * value is a safe integer are written in; anything else (another parameter style, a non-integer
 * value) leaves the statement as it is.
 */

/** Where a text's LIMIT/OFFSET parameters are: the text split around them, and their indexes among all `?`. */
interface Plan {
  parts: string[];
  params: number[];
}

/** Plans by statement text (texts repeat: statements are built once, prepared.ts); bounded like prepared.ts's cache. */
const plans = new Map<string, Plan | null>();
const PLANS = 1000;

const WORD = /[A-Za-z0-9_]/;

/** The `?` parameters after LIMIT/OFFSET in `text`, or null when there are none or the text uses other parameter styles. */
function planOf(text: string): Plan | null {
  const cuts: number[] = [];
  const params: number[] = [];
  let param = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      // A doubled quote inside ends one quoted run and starts the next: the same as skipping it.
      const end = text.indexOf(c, i + 1);
      if (end < 0) return null;
      i = end;
    } else if (c === '[') {
      const end = text.indexOf(']', i + 1);
      if (end < 0) return null;
      i = end;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return null;
      i = end + 1;
    } else if (c === '?') {
      if (/[0-9]/.test(text[i + 1] ?? '')) return null;
      if (keywordBefore(text, i)) {
        cuts.push(i);
        params.push(param);
      }
      param++;
    } else if ((c === ':' || c === '@' || c === '$') && WORD.test(text[i + 1] ?? '')) {
      return null;
    }
  }
  if (!cuts.length) return null;
  const parts: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    parts.push(text.slice(from, cut));
    from = cut + 1;
  }
  parts.push(text.slice(from));
  return { parts, params };
}

/** Whether the word before position `at` (past white space) is LIMIT or OFFSET. */
function keywordBefore(text: string, at: number): boolean {
  let end = at;
  while (end > 0 && /\s/.test(text[end - 1])) end--;
  let start = end;
  while (start > 0 && WORD.test(text[start - 1])) start--;
  const word = text.slice(start, end).toLowerCase();
  return word === 'limit' || word === 'offset';
}

/** `text` and `values` with the integer LIMIT/OFFSET values written into the text (the same pair when there are none). */
export function literalLimits(text: string, values: readonly unknown[]): [string, readonly unknown[]] {
  let plan = plans.get(text);
  if (plan === undefined) {
    plan = planOf(text);
    if (plans.size >= PLANS) plans.clear();
    plans.set(text, plan);
  }
  if (!plan) return [text, values];
  let out = plan.parts[0];
  const inlined = new Set<number>();
  plan.params.forEach((index, k) => {
    const v = values[index];
    if ((typeof v === 'number' && Number.isSafeInteger(v)) || typeof v === 'bigint') {
      out += String(v);
      inlined.add(index);
    } else out += '?';
    out += plan.parts[k + 1];
  });
  if (!inlined.size) return [text, values];
  return [out, values.filter((_, i) => !inlined.has(i))];
}
