/**
 * The cleanup passes of the Ruby gem diff_match_patch 0.1.0 (`diff_cleanupSemantic`,
 * `diff_cleanupSemanticLossless`, `diff_cleanupMerge`) and the string helpers they share with
 * char-diff.ts, translated with the gem's Ruby quirks (truthy empty strings, inclusive ranges,
 * `^`/`$` as line anchors, ASCII `\s`).
 */

export type Op = 'equal' | 'insert' | 'delete';
export type Diff = [Op, string];

/** Ruby `s[-n..-1]`: n = 0 is the whole string, n > length is nil. */
const rTail = (s: string, n: number): string | null => (n === 0 ? s : n > s.length ? null : s.slice(s.length - n));
/** Ruby `s[0...-n]`: n = 0 is "". */
const rHead = (s: string, n: number): string => (n === 0 ? '' : s.slice(0, Math.max(0, s.length - n)));

export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export function commonSuffix(a: string, b: string): number {
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

export function cleanupSemantic(diffs: Diff[]): void {
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

export function cleanupMerge(diffs: Diff[]): void {
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
