/**
 * Emoji for user status (GitLab Banzai EmojiPipeline: HtmlEntityFilter, SanitizationFilter, EmojiFilter).
 * Names come from gemoji; `:name:` codes and Unicode emoji in text become GitLab's `<gl-emoji>` element
 * (Gitlab::Emoji.gl_emoji_tag): `<gl-emoji title="palm tree" data-name="palm_tree" data-unicode-version="6.0">🌴</gl-emoji>`.
 */
import { gemoji, type Gemoji } from 'gemoji';

/**
 * Unicode age of every code point used by gemoji (Unicode 15.0 DerivedAge.txt, Debian unicode-data),
 * as `start[-length]:version` runs in base 36. gemoji carries no version; GitLab's data-unicode-version is
 * the Unicode version that added the character (palm_tree 6.0, coffee 4.0). For sequences we take the
 * newest component, which can differ from TanukiEmoji for some ZWJ sequences.
 */
const AGES = 'z-m:1.1 4p:1.1 4u:1.1 6d8:1.1 6dl:3.0 6jm:1.1 6k9:3.0 6ms-m:1.1 6xm-e:1.1 72n:4.0 73d-a:6.0 73s-2:7.0 79e:1.1 7fu-m:1.1 7i3-3:3.2 7i8-h:1.1 7is-1:4.0 7iw:4.1 7j1-23:1.1 7ln:3.2 7lq-1:4.1 7ma-a:4.1 7mo-1:4.0 7mv-a:4.1 7nh-1:5.2 7no-4:5.2 7ny:6.0 7nz-5:5.2 7op-k:5.2 7pe:1.1 7ph:6.0 7pk-1:1.1 7pm-1:6.0 7po-l:1.1 7qg:6.0 7qr-k:1.1 7rg:6.0 7ri:6.0 7rn-2:6.0 7rr:5.2 7s3-1:1.1 7th-2:6.0 7tt:1.1 7u8:6.0 7un:6.0 850-1:3.2 8hx-2:4.0 8ij-1:5.1 8k0:5.1 8k5:5.2 9io:1.1 9j1:3.2 9zr-2:1.1 2pz8:5.1 2q4v:6.0 2q9c-1:6.0 2q9q:6.0 2q9r:5.2 2qa6:6.0 2qa9-9:6.0 2qcm-p:6.0 2qdd-1:6.0 2qe2-l:5.2 2qeq-8:6.0 2qfk-1:6.0 2qkg-w:6.0 2qld-b:7.0 2qlp-2:8.0 2qls-5:6.0 2qly:7.0 2qlz-1x:6.0 2qnx:7.0 2qny-1:8.0 2qo0-j:6.0 2qom-9:7.0 2qow-10:6.0 2qpx:7.0 2qpy-4:6.0 2qq3-3:7.0 2qq7-4:8.0 2qqc-b:7.0 2qqo-g:6.0 2qr7-4:7.0 2qrc-2:8.0 2qrk-1q:6.0 2qtb:7.0 2qtc:6.0 2qtd:7.0 2qte-51:6.0 2qyg:7.0 2qyh-3:6.0 2qyl:7.0 2qyn:8.0 2qyo-1p:6.0 2r0p-1:7.0 2r0r-3:8.0 2r0w-n:6.0 2r1r-a:7.0 2r22:9.0 2r2f-f:7.0 2r38:9.0 2r39-2d:7.0 2r5n-4:6.0 2r5s:6.1 2r5t-f:6.0 2r69:6.1 2r6a-2:6.0 2r6d:6.1 2r6e:6.0 2r6f:6.1 2r6g:6.0 2r6h:6.1 2r6i:6.0 2r6j:6.1 2r6k-2:6.0 2r6n:6.1 2r6o-5:6.0 2r6u-1:6.1 2r6w-3:6.0 2r70:6.1 2r71:6.0 2r72-1:6.1 2r74-3:6.0 2r78:6.1 2r79-b:6.0 2r7l-1:7.0 2r7n-1:8.0 2r7p-a:6.0 2r9c-1x:6.0 2rbf-4:7.0 2rbk:8.0 2rbl-1:9.0 2rbp:12.0 2rbq-1:13.0 2rbw:15.0 2rbx-2:14.0 2rc0-c:7.0 2rcg-3:7.0 2rck-2:9.0 2rcn-1:10.0 2rcp:11.0 2rcq:12.0 2rcr-1:13.0 2rj4-b:12.0 2rjk:14.0 2rrg:13.0 2rrh-2:12.0 2rrk-8:8.0 2rrt-5:9.0 2rrz:10.0 2rs0-7:9.0 2rs8-7:10.0 2rsg:9.0 2rsh-1:10.0 2rsj-b:9.0 2rsv:12.0 2rsw-b:9.0 2rt8:10.0 2rt9-2:11.0 2rtc-e:9.0 2rtr-c:10.0 2ru4-4:11.0 2ru9:12.0 2rua:13.0 2rub-3:11.0 2ruf-1:13.0 2ruh:14.0 2rui:11.0 2ruj:12.0 2ruk-3:11.0 2ruo-4:8.0 2rut-c:9.0 2rv6-5:10.0 2rvc-a:11.0 2rvn-1:13.0 2rvp-5:12.0 2rvv-2:13.0 2rvy-1:12.0 2rw0-9:11.0 2rwa-5:12.0 2rwg:8.0 2rwh-1:11.0 2rwj-7:12.0 2rwr:13.0 2rws:14.0 2rwt-2:12.0 2rww-m:10.0 2rxj-o:11.0 2s1c-3:12.0 2s1g:13.0 2s1h-2:15.0 2s1k-2:12.0 2s1n-1:14.0 2s1s-2:12.0 2s1v-3:13.0 2s1z-1:15.0 2s28-5:12.0 2s2e-i:13.0 2s2x-3:14.0 2s31-2:15.0 2s34-6:13.0 2s3b-3:14.0 2s3f-2:15.0 2s3j:15.0 2s3k-2:13.0 2s3n-2:14.0 2s3y-1:15.0 2s40-6:13.0 2s47-2:14.0 2s4a-1:15.0 2s4g-7:14.0 2s4o:15.0 2s4w-6:14.0 2s53-1:15.0';

let ageRuns: [number, number, string][] | undefined;
function ageOf(cp: number): string | undefined {
  ageRuns ??= AGES.split(' ').map((run) => {
    const [span, version] = run.split(':');
    const [start, len] = span.split('-');
    const a = parseInt(start, 36);
    return [a, a + (len ? parseInt(len, 36) : 0), version] as [number, number, string];
  });
  let lo = 0;
  let hi = ageRuns.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b, v] = ageRuns[mid];
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return v;
  }
  return undefined;
}

const IGNORED_CODEPOINTS = (cp: number) => cp === 0xfe0f || cp === 0x200d || (cp >= 0xe0020 && cp <= 0xe007f);

/** Unicode version of an emoji (newest component), "major.minor". */
export function unicodeVersion(moji: string): string | null {
  let best: string | null = null;
  for (const ch of moji) {
    const cp = ch.codePointAt(0)!;
    if (IGNORED_CODEPOINTS(cp)) continue;
    const v = ageOf(cp);
    if (v && (!best || compareVersions(v, best) > 0)) best = v;
  }
  return best;
}

function compareVersions(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

interface Index {
  byName: Map<string, Gemoji>;
  byMoji: Map<string, Gemoji>;
  mojiPattern: RegExp;
}

let index: Index | undefined;
function emojiIndex(): Index {
  if (index) return index;
  const byName = new Map<string, Gemoji>();
  const byMoji = new Map<string, Gemoji>();
  for (const e of gemoji) {
    for (const n of e.names) if (!byName.has(n)) byName.set(n, e);
    if (!byMoji.has(e.emoji)) byMoji.set(e.emoji, e);
    // Text often carries the emoji without its variation selector (☕ vs ☕️).
    const bare = e.emoji.replace(/\uFE0F/g, '');
    if (bare && !byMoji.has(bare)) byMoji.set(bare, e);
  }
  // Banzai EmojiFilter IGNORE_UNICODE_EMOJIS: ™ © ® stay text.
  for (const ch of ['\u2122', '\u00A9', '\u00AE']) {
    byMoji.delete(ch);
    byMoji.delete(`${ch}\uFE0F`);
  }
  const alternatives = [...byMoji.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  index = { byName, byMoji, mojiPattern: new RegExp(alternatives.join('|'), 'gu') };
  return index;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** UserStatus emoji validation (`gitlab/emoji_name` validator): a known short name, no colons. */
export const isEmojiName = (name: string): boolean => emojiIndex().byName.has(name);

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;');

/** Gitlab::Emoji.gl_emoji_tag: title (description), data-name (primary name), data-unicode-version. */
export function glEmojiTag(e: Gemoji): string {
  const version = unicodeVersion(e.emoji);
  return `<gl-emoji title="${escapeAttr(e.description)}" data-name="${escapeAttr(e.names[0])}" data-unicode-version="${version ?? ''}">${e.emoji}</gl-emoji>`;
}

// TanukiEmoji alpha_code_pattern: a :name: not glued to letters, digits or another colon.
const NAME_CODE = /(?<=[^\p{L}\p{N}:]|^):([a-z0-9_+\-]+):(?=[^\p{L}\p{N}:]|$)/gmu;

/**
 * The emoji pipeline on a plain-text message: HTML-escaped text (the sanitizer re-serializes entities, so
 * only `& < >` stay escaped), Unicode emoji and then `:name:` codes replaced by gl-emoji elements.
 * No paragraph wrapper: the pipeline has no Markdown stage.
 */
export function renderEmojiMessage(text: string): string {
  const { byName, byMoji, mojiPattern } = emojiIndex();
  const escaped = escapeText(text);
  // Unicode emoji first, as EmojiFilter does, then names; the name pass must not touch emitted tags.
  const parts = escaped.split(mojiPattern);
  const mojis = escaped.match(mojiPattern) ?? [];
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    out += parts[i].replace(NAME_CODE, (whole, name: string) => {
      const e = byName.get(name);
      return e ? glEmojiTag(e) : whole;
    });
    if (i < mojis.length) out += glEmojiTag(byMoji.get(mojis[i])!);
  }
  return out;
}
