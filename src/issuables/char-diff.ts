/**
 * Gitlab::Diff::CharDiff: `diff_main(old, new)` then `diff_cleanupSemantic` of the Ruby gem
 * diff_match_patch 0.1.0 (a port of Google's diff-match-patch), translated with its Ruby quirks
 * (truthy empty strings, inclusive ranges, `^`/`$` as line anchors, ASCII `\s`), so the marked
 * ranges come out as GitLab's. Ruby indexes strings by code point: astral characters are first
 * mapped to private-use characters absent from both texts, so one character is one unit.
 */
import { cleanupMerge, cleanupSemantic, commonPrefix, commonSuffix, type Diff, type Op } from './char-diff-cleanup';

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
