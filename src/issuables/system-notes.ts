/**
 * System notes: the server's own notes recording a change (GitLab app/services/system_notes/
 * issuables_service.rb). Written as insert builders so they join the db.batch of the change.
 * Milestone, label, state and weight changes are resource events in GitLab, not notes.
 */
import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { notes } from '../db/schema';

export function systemNoteInsert(
  db: Db,
  n: { noteableType: 'Issue' | 'Epic' | 'MergeRequest'; noteableId: number | SQL<number>; projectId: number | null; authorId: number; body: string; at: number },
) {
  return db.insert(notes).values({
    noteableType: n.noteableType,
    noteableId: n.noteableId,
    projectId: n.projectId,
    authorId: n.authorId,
    body: n.body,
    system: true,
    createdAt: n.at,
    updatedAt: n.at,
  });
}

/**
 * The same system note, written only when `when` holds as the batch reaches it (for a note that
 * belongs to a write another statement of the batch may have lost to a concurrent request).
 */
export function systemNoteInsertWhen(
  db: Db,
  n: { noteableType: 'Issue' | 'Epic' | 'MergeRequest'; noteableId: number; projectId: number | null; authorId: number; body: string; at: number },
  when: SQL,
) {
  const values: Record<string, unknown> = { noteableType: n.noteableType, noteableId: n.noteableId, projectId: n.projectId, authorId: n.authorId, body: n.body, system: 1, createdAt: n.at, updatedAt: n.at };
  // INSERT … SELECT lists every column (D1 batches take query builders, not raw statements):
  // the given values, column defaults, NULL for the rest (the id included).
  const fields = Object.entries(getTableColumns(notes)).map(([key, col]) => {
    if (key in values) return sql`${values[key]}`;
    if (col.hasDefault && col.default !== undefined) return sql`${typeof col.default === 'boolean' ? Number(col.default) : col.default}`;
    return sql`NULL`;
  });
  return db.insert(notes).select(sql`SELECT ${sql.join(fields, sql`, `)} WHERE ${when}`);
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** change_start_date_or_due_date: "changed due date to January 31, 2030" / "removed due date". */
export function dueDateNote(date: string | null): string {
  if (!date) return 'removed due date';
  const [y, m, d] = date.split('-').map(Number);
  return `changed due date to ${MONTHS[m - 1]} ${d}, ${y}`;
}

/** Array#to_sentence (Rails, English): "a", "a and b", "a, b, and c". */
export function toSentence(items: string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** change_issuable_assignees: "assigned to @a, @b, and @c and unassigned @d". */
export function assigneesNote(added: string[], removed: string[]): string | null {
  const join = (names: string[]) => toSentence(names.map((u) => `@${u}`));
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${join(added)}`);
  if (removed.length) parts.push(`unassigned ${join(removed)}`);
  return parts.length ? parts.join(' and ') : null;
}

/**
 * change_title: "changed title from **Old {-x-}** to **Old {+y+}**", each title marked with its
 * character-level changes (Gitlab::Diff::InlineDiff -> CharDiff -> InlineDiffMarkdownMarker).
 */
export function titleNote(from: string, to: string): string {
  const [oldRanges, newRanges] = charDiffRanges(from, to);
  return `changed title from **${markRanges(from, oldRanges, '-')}** to **${markRanges(to, newRanges, '+')}**`;
}

// ---------------------------------------------------------------------------------------------
// Gitlab::Diff::CharDiff: `diff_main(old, new)` then `diff_cleanupSemantic` of the Ruby gem
// diff_match_patch 0.1.0 (a port of Google's diff-match-patch), translated with its Ruby
// quirks (truthy empty strings, inclusive ranges, `^`/`$` as line anchors, ASCII `\s`), so the
// marked ranges come out as GitLab's. Ruby indexes strings by code point: astral characters are
// first mapped to private-use characters absent from both texts, so one character is one unit.

type Op = 'equal' | 'insert' | 'delete';
type Diff = [Op, string];

/** Ruby `s[-n..-1]`: n = 0 is the whole string, n > length is nil. */
const rTail = (s: string, n: number): string | null => (n === 0 ? s : n > s.length ? null : s.slice(s.length - n));
/** Ruby `s[0...-n]`: n = 0 is "". */
const rHead = (s: string, n: number): string => (n === 0 ? '' : s.slice(0, Math.max(0, s.length - n)));

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function commonSuffix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return i;
}

function commonOverlap(text1: string, text2: string): number {
  const l1 = text1.length;
  const l2 = text2.length;
  if (l1 === 0 || l2 === 0) return 0;
  if (l1 > l2) text1 = text1.slice(l1 - l2);
  else text2 = text2.slice(0, l1);
  const len = Math.min(l1, l2);
  if (text1 === text2) return len;
  let best = 0;
  let length = 1;
  for (;;) {
    const found = text2.indexOf(text1.slice(len - length));
    if (found === -1) return best;
    length += found;
    // The gem compares with `text2[0..length]`, an inclusive range one character longer than the suffix.
    if (found === 0 || text1.slice(len - length) === text2.slice(0, length + 1)) {
      best = length;
      length += 1;
    }
  }
}

function halfMatchI(longtext: string, shorttext: string, i: number): string[] | null {
  const seed = longtext.substr(i, Math.floor(longtext.length / 4));
  let j = -1;
  let bestCommon = '';
  let best: string[] = [];
  while ((j = shorttext.indexOf(seed, j + 1)) !== -1) {
    const prefix = commonPrefix(longtext.slice(i), shorttext.slice(j));
    const suffix = commonSuffix(longtext.slice(0, i), shorttext.slice(0, j));
    if (bestCommon.length < suffix + prefix) {
      bestCommon = shorttext.slice(j - suffix, j) + shorttext.slice(j, j + prefix);
      best = [longtext.slice(0, i - suffix), longtext.slice(i + prefix), shorttext.slice(0, j - suffix), shorttext.slice(j + prefix)];
    }
    if (j + 1 > shorttext.length) break;
  }
  return bestCommon.length * 2 >= longtext.length ? [...best, bestCommon] : null;
}

function halfMatch(text1: string, text2: string): string[] | null {
  const [shorttext, longtext] = text1.length <= text2.length ? [text1, text2] : [text2, text1];
  if (longtext.length < 4 || shorttext.length * 2 < longtext.length) return null;
  const hm1 = halfMatchI(longtext, shorttext, Math.floor((longtext.length + 3) / 4));
  const hm2 = halfMatchI(longtext, shorttext, Math.floor((longtext.length + 1) / 2));
  let hm: string[];
  if (!hm1 && !hm2) return null;
  else if (!hm2 || !hm1) hm = (hm2 ?? hm1)!;
  else hm = hm1[4].length > hm2[4].length ? hm1 : hm2;
  const [la, lb, sa, sb, mid] = hm;
  return text1.length > text2.length ? [la, lb, sa, sb, mid] : [sa, sb, la, lb, mid];
}

function diffMain(text1: string, text2: string, checklines: boolean): Diff[] {
  if (text1 === text2) return text1 === '' ? [] : [['equal', text1]];
  let prefix: string | null = null;
  let suffix: string | null = null;
  let n = commonPrefix(text1, text2);
  if (n) {
    prefix = text1.slice(0, n);
    text1 = text1.slice(n);
    text2 = text2.slice(n);
  }
  n = commonSuffix(text1, text2);
  if (n) {
    suffix = text1.slice(text1.length - n);
    text1 = text1.slice(0, text1.length - n);
    text2 = text2.slice(0, text2.length - n);
  }
  const diffs = diffCompute(text1, text2, checklines);
  if (prefix !== null) diffs.unshift(['equal', prefix]);
  if (suffix !== null) diffs.push(['equal', suffix]);
  cleanupMerge(diffs);
  return diffs;
}

function diffCompute(text1: string, text2: string, checklines: boolean): Diff[] {
  if (text1 === '') return [['insert', text2]];
  if (text2 === '') return [['delete', text1]];
  const [shorttext, longtext] = text1.length <= text2.length ? [text1, text2] : [text2, text1];
  const i = longtext.indexOf(shorttext);
  if (i !== -1) {
    const op: Op = text1.length > text2.length ? 'delete' : 'insert';
    return [[op, longtext.slice(0, i)], ['equal', shorttext], [op, longtext.slice(i + shorttext.length)]];
  }
  if (shorttext.length === 1) return [['delete', text1], ['insert', text2]];
  const hm = halfMatch(text1, text2);
  if (hm) {
    const [t1a, t1b, t2a, t2b, mid] = hm;
    return [...diffMain(t1a, t2a, checklines), ['equal', mid], ...diffMain(t1b, t2b, checklines)];
  }
  if (checklines && text1.length > 100 && text2.length > 100) return lineMode(text1, text2);
  return bisect(text1, text2);
}

function lineMode(text1: string, text2: string): Diff[] {
  const lineArray = [''];
  const lineHash = new Map<string, number>();
  const toChars = (text: string) => {
    let chars = '';
    for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
      let idx = lineHash.get(line);
      if (idx === undefined) {
        idx = lineArray.length;
        lineHash.set(line, idx);
        lineArray.push(line);
      }
      chars += String.fromCharCode(idx);
    }
    return chars;
  };
  const c1 = toChars(text1);
  const c2 = toChars(text2);
  const diffs = diffMain(c1, c2, false);
  for (const d of diffs) d[1] = [...d[1]].map((ch) => lineArray[ch.charCodeAt(0)]).join('');
  cleanupSemantic(diffs);
  diffs.push(['equal', '']);
  let pointer = 0;
  let countDelete = 0;
  let countInsert = 0;
  let textDelete = '';
  let textInsert = '';
  while (pointer < diffs.length) {
    const [op, text] = diffs[pointer];
    if (op === 'insert') {
      countInsert++;
      textInsert += text;
    } else if (op === 'delete') {
      countDelete++;
      textDelete += text;
    } else {
      if (countDelete >= 1 && countInsert >= 1) {
        const a = diffMain(textDelete, textInsert, false);
        diffs.splice(pointer - countDelete - countInsert, countDelete + countInsert);
        pointer = pointer - countDelete - countInsert;
        diffs.splice(pointer, 0, ...a);
        pointer += a.length;
      }
      countInsert = 0;
      countDelete = 0;
      textDelete = '';
      textInsert = '';
    }
    pointer++;
  }
  diffs.pop();
  return diffs;
}

/** Myers' middle snake (diff_bisect); no deadline: titles are at most 255 characters. */
function bisect(text1: string, text2: string): Diff[] {
  const l1 = text1.length;
  const l2 = text2.length;
  const maxD = Math.floor((l1 + l2 + 1) / 2);
  const vOffset = maxD;
  const vLength = 2 * maxD;
  const v1 = new Array<number>(vLength).fill(-1);
  const v2 = new Array<number>(vLength).fill(-1);
  v1[vOffset + 1] = 0;
  v2[vOffset + 1] = 0;
  const delta = l1 - l2;
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1Offset = vOffset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1Offset - 1] < v1[k1Offset + 1]) ? v1[k1Offset + 1] : v1[k1Offset - 1] + 1;
      let y1 = x1 - k1;
      while (x1 < l1 && y1 < l2 && text1[x1] === text2[y1]) {
        x1++;
        y1++;
      }
      v1[k1Offset] = x1;
      if (x1 > l1) k1end += 2;
      else if (y1 > l2) k1start += 2;
      else if (front) {
        const k2Offset = vOffset + delta - k1;
        if (k2Offset >= 0 && k2Offset < vLength && v2[k2Offset] !== -1 && x1 >= l1 - v2[k2Offset]) return bisectSplit(text1, text2, x1, y1);
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2Offset = vOffset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2Offset - 1] < v2[k2Offset + 1]) ? v2[k2Offset + 1] : v2[k2Offset - 1] + 1;
      let y2 = x2 - k2;
      while (x2 < l1 && y2 < l2 && text1[l1 - x2 - 1] === text2[l2 - y2 - 1]) {
        x2++;
        y2++;
      }
      v2[k2Offset] = x2;
      if (x2 > l1) k2end += 2;
      else if (y2 > l2) k2start += 2;
      else if (!front) {
        const k1Offset = vOffset + delta - k2;
        if (k1Offset >= 0 && k1Offset < vLength && v1[k1Offset] !== -1) {
          const x1 = v1[k1Offset];
          const y1 = vOffset + x1 - k1Offset;
          if (x1 >= l1 - x2) return bisectSplit(text1, text2, x1, y1);
        }
      }
    }
  }
  return [['delete', text1], ['insert', text2]];
}

const bisectSplit = (text1: string, text2: string, x: number, y: number): Diff[] => [
  ...diffMain(text1.slice(0, x), text2.slice(0, y), false),
  ...diffMain(text1.slice(x), text2.slice(y), false),
];

function cleanupSemantic(diffs: Diff[]): void {
  let changes = false;
  const equalities: number[] = [];
  let lastEquality: string | null = null;
  let pointer = 0;
  let ins1 = 0;
  let del1 = 0;
  let ins2 = 0;
  let del2 = 0;
  while (pointer < diffs.length) {
    if (diffs[pointer][0] === 'equal') {
      equalities.push(pointer);
      ins1 = ins2;
      del1 = del2;
      ins2 = 0;
      del2 = 0;
      lastEquality = diffs[pointer][1];
    } else {
      if (diffs[pointer][0] === 'insert') ins2 += diffs[pointer][1].length;
      else del2 += diffs[pointer][1].length;
      // Ruby: an empty string is truthy, so an empty last equality still qualifies.
      if (lastEquality !== null && lastEquality.length <= Math.max(ins1, del1) && lastEquality.length <= Math.max(ins2, del2)) {
        const at = equalities[equalities.length - 1];
        diffs.splice(at, 0, ['delete', lastEquality]);
        diffs[at + 1][0] = 'insert';
        equalities.pop();
        equalities.pop();
        pointer = equalities.length ? equalities[equalities.length - 1] : -1;
        ins1 = del1 = ins2 = del2 = 0;
        lastEquality = null;
        changes = true;
      }
    }
    pointer++;
  }
  if (changes) cleanupMerge(diffs);
  cleanupSemanticLossless(diffs);

  pointer = 1;
  while (pointer < diffs.length) {
    if (diffs[pointer - 1][0] === 'delete' && diffs[pointer][0] === 'insert') {
      const deletion = diffs[pointer - 1][1];
      const insertion = diffs[pointer][1];
      const o1 = commonOverlap(deletion, insertion);
      const o2 = commonOverlap(insertion, deletion);
      if (o1 >= o2) {
        if (o1 >= deletion.length / 2 || o1 >= insertion.length / 2) {
          diffs.splice(pointer, 0, ['equal', insertion.slice(0, o1)]);
          diffs[pointer - 1] = ['delete', rHead(deletion, o1)];
          diffs[pointer + 1] = ['insert', insertion.slice(o1)];
          pointer++;
        }
      } else if (o2 >= deletion.length / 2 || o2 >= insertion.length / 2) {
        diffs.splice(pointer, 0, ['equal', deletion.slice(0, o2)]);
        diffs[pointer - 1] = ['insert', rHead(insertion, o2)];
        diffs[pointer + 1] = ['delete', deletion.slice(o2)];
        pointer++;
      }
      pointer++;
    }
    pointer++;
  }
}

const NON_WORD = /[^a-zA-Z0-9]/;
const RUBY_SPACE = /[ \t\r\n\f\v]/;
const LINEBREAK = /[\r\n]/;
// Ruby's `$` and `^` anchor at line ends and starts, not only at the ends of the string.
const BLANK_LINE_END = /\n\r?\n(?=\n|$)/;
const BLANK_LINE_START = /(?:^|(?<=\n))\r?\n\r?\n/;

function semanticScore(one: string, two: string): number {
  if (one === '' || two === '') return 5;
  const a = one[one.length - 1];
  const b = two[0];
  let score = 0;
  if (NON_WORD.test(a) || NON_WORD.test(b)) {
    score++;
    if (RUBY_SPACE.test(a) || RUBY_SPACE.test(b)) {
      score++;
      if (LINEBREAK.test(a) || LINEBREAK.test(b)) {
        score++;
        if (BLANK_LINE_END.test(one) || BLANK_LINE_START.test(two)) score++;
      }
    }
  }
  return score;
}

function cleanupSemanticLossless(diffs: Diff[]): void {
  let pointer = 1;
  while (pointer < diffs.length - 1) {
    if (diffs[pointer - 1][0] === 'equal' && diffs[pointer + 1][0] === 'equal') {
      let equality1 = diffs[pointer - 1][1];
      let edit = diffs[pointer][1];
      let equality2 = diffs[pointer + 1][1];
      const offset = commonSuffix(equality1, edit);
      if (offset !== 0) {
        const common = edit.slice(edit.length - offset);
        equality1 = rHead(equality1, offset);
        edit = common + rHead(edit, offset);
        equality2 = common + equality2;
      }
      let bestEquality1 = equality1;
      let bestEdit = edit;
      let bestEquality2 = equality2;
      let bestScore = semanticScore(equality1, edit) + semanticScore(edit, equality2);
      while (edit !== '' && equality2 !== '' && edit[0] === equality2[0]) {
        equality1 += edit[0];
        edit = edit.slice(1) + equality2[0];
        equality2 = equality2.slice(1);
        const score = semanticScore(equality1, edit) + semanticScore(edit, equality2);
        if (score >= bestScore) {
          bestScore = score;
          bestEquality1 = equality1;
          bestEdit = edit;
          bestEquality2 = equality2;
        }
      }
      if (diffs[pointer - 1][1] !== bestEquality1) {
        if (bestEquality1 === '') {
          diffs.splice(pointer - 1, 1);
          pointer--;
        } else diffs[pointer - 1][1] = bestEquality1;
        diffs[pointer][1] = bestEdit;
        if (bestEquality2 === '') {
          diffs.splice(pointer + 1, 1);
          pointer--;
        } else diffs[pointer + 1][1] = bestEquality2;
      }
    }
    pointer++;
  }
}

function cleanupMerge(diffs: Diff[]): void {
  diffs.push(['equal', '']);
  let pointer = 0;
  let countDelete = 0;
  let countInsert = 0;
  let textDelete = '';
  let textInsert = '';
  while (pointer < diffs.length) {
    const op = diffs[pointer][0];
    if (op === 'insert') {
      countInsert++;
      textInsert += diffs[pointer][1];
      pointer++;
    } else if (op === 'delete') {
      countDelete++;
      textDelete += diffs[pointer][1];
      pointer++;
    } else {
      if (countDelete + countInsert > 1) {
        if (countDelete !== 0 && countInsert !== 0) {
          let n = commonPrefix(textInsert, textDelete);
          if (n !== 0) {
            const before = pointer - countDelete - countInsert;
            if (before > 0 && diffs[before - 1][0] === 'equal') diffs[before - 1][1] += textInsert.slice(0, n);
            else {
              diffs.unshift(['equal', textInsert.slice(0, n)]);
              pointer++;
            }
            textInsert = textInsert.slice(n);
            textDelete = textDelete.slice(n);
          }
          n = commonSuffix(textInsert, textDelete);
          if (n !== 0) {
            diffs[pointer][1] = textInsert.slice(textInsert.length - n) + diffs[pointer][1];
            textInsert = rHead(textInsert, n);
            textDelete = rHead(textDelete, n);
          }
        }
        const merged: Diff[] =
          countDelete === 0 ? [['insert', textInsert]] : countInsert === 0 ? [['delete', textDelete]] : [['delete', textDelete], ['insert', textInsert]];
        diffs.splice(pointer - countDelete - countInsert, countDelete + countInsert, ...merged);
        pointer = pointer - countDelete - countInsert + (countDelete ? 1 : 0) + (countInsert ? 1 : 0) + 1;
      } else if (pointer !== 0 && diffs[pointer - 1][0] === 'equal') {
        diffs[pointer - 1][1] += diffs[pointer][1];
        diffs.splice(pointer, 1);
      } else pointer++;
      countInsert = 0;
      countDelete = 0;
      textDelete = '';
      textInsert = '';
    }
  }
  if (diffs[diffs.length - 1][1] === '') diffs.pop();

  let changes = false;
  pointer = 1;
  while (pointer < diffs.length - 1) {
    if (diffs[pointer - 1][0] === 'equal' && diffs[pointer + 1][0] === 'equal') {
      const prev = diffs[pointer - 1][1];
      const next = diffs[pointer + 1][1];
      const edit = diffs[pointer][1];
      if (rTail(edit, prev.length) === prev) {
        diffs[pointer][1] = prev + rHead(edit, prev.length);
        diffs[pointer + 1][1] = prev + next;
        diffs.splice(pointer - 1, 1);
        changes = true;
      } else if (edit.slice(0, next.length) === next) {
        diffs[pointer - 1][1] += next;
        diffs[pointer][1] = edit.slice(next.length) + next;
        diffs.splice(pointer + 1, 1);
        changes = true;
      }
    }
    pointer++;
  }
  if (changes) cleanupMerge(diffs);
}

/** CharDiff#changed_ranges over code points: [old (deleted) ranges, new (inserted) ranges], inclusive. */
export function charDiffRanges(oldText: string, newText: string): [Array<[number, number]>, Array<[number, number]>] {
  // InlineDiff#inline_diffs: nothing is marked when the old text is empty.
  if (oldText === '') return [[], []];
  const { encode } = astralCodec(oldText + newText);
  const diffs = diffMain(encode(oldText), encode(newText), true);
  cleanupSemantic(diffs);
  const oldRanges: Array<[number, number]> = [];
  const newRanges: Array<[number, number]> = [];
  let o = 0;
  let n = 0;
  for (const [op, text] of diffs) {
    if (op === 'equal') {
      o += text.length;
      n += text.length;
    } else if (op === 'delete') {
      oldRanges.push([o, o + text.length - 1]);
      o += text.length;
    } else {
      newRanges.push([n, n + text.length - 1]);
      n += text.length;
    }
  }
  return [oldRanges, newRanges];
}

/** StringRangeMarker#mark with InlineDiffMarkdownMarker's `{-text-}` / `{+text+}`. */
export function markRanges(text: string, ranges: Array<[number, number]>, symbol: '-' | '+'): string {
  if (!ranges.length) return text;
  const chars = [...text];
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    out += chars.slice(at, from).join('') + `{${symbol}${chars.slice(from, to + 1).join('')}${symbol}}`;
    at = to + 1;
  }
  return out + chars.slice(at).join('');
}

/** One UTF-16 unit per code point: astral characters become private-use characters unused in the texts. */
function astralCodec(sample: string) {
  const used = new Set(sample);
  const map = new Map<string, string>();
  let next = 0xe000;
  const encode = (s: string) => {
    let out = '';
    for (const ch of s) {
      if (ch.length === 1) {
        out += ch;
        continue;
      }
      let code = map.get(ch);
      if (code === undefined) {
        while (used.has(String.fromCharCode(next))) next++;
        code = String.fromCharCode(next++);
        map.set(ch, code);
      }
      out += code;
    }
    return out;
  };
  return { encode };
}
export const DESCRIPTION_NOTE = 'changed the description';
export const confidentialityNote = (confidential: boolean) => (confidential ? 'made the issue confidential' : 'made the issue visible to everyone');
export const discussionLockNote = (locked: boolean) => `${locked ? 'locked' : 'unlocked'} the discussion in this issue`;
export const issueTypeNote = (from: string, to: string) => `changed type from ${from.replace('_', ' ')} to ${to.replace('_', ' ')}`;
