/**
 * A streaming multipart/form-data reader: parts come one at a time with their body as a stream, so
 * a large file part (a project export archive) can go to the blob store as it arrives instead of
 * being held whole in memory (Request#formData, and Hono's parseBody over it, buffer the body).
 * Each part's body must be read (or abandoned) before asking for the next; an unread remainder is
 * skipped. Throws MultipartError on a malformed body.
 */

export class MultipartError extends Error {}

export interface MultipartPart {
  /** The form field (Content-Disposition `name`). */
  field: string;
  /** Present for a file part (Content-Disposition `filename`, possibly empty). */
  filename?: string;
  type: string;
  body: ReadableStream<Uint8Array>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
/** Headers of one part at most. */
const MAX_HEADER_BYTES = 16 * 1024;

/** The boundary of a `multipart/form-data; boundary=...` content type, or null. */
export function multipartBoundary(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : null;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  for (let i = hay.indexOf(first, from); i >= 0 && i <= hay.length - needle.length; i = hay.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

function headerParam(value: string, name: string): string | undefined {
  const m = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]*)`, 'i').exec(value);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

export async function* multipartParts(input: ReadableStream<Uint8Array>, boundary: string): AsyncGenerator<MultipartPart> {
  const reader = input.getReader();
  // Every delimiter is CRLF "--" boundary; the body is read as if a CRLF came first, so the first one matches too.
  const delim = enc.encode(`\r\n--${boundary}`);
  let buf: Uint8Array = enc.encode('\r\n');
  let ended = false;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      return false;
    }
    const next = new Uint8Array(buf.byteLength + value.byteLength);
    next.set(buf);
    next.set(value, buf.byteLength);
    buf = next;
    return true;
  };
  /** The next piece of the current part's body, or null at its delimiter (left at the start of `buf`). */
  const bodyChunk = async (): Promise<Uint8Array | null> => {
    for (;;) {
      const at = indexOf(buf, delim);
      if (at === 0) return null;
      if (at > 0) {
        const out = buf.slice(0, at);
        buf = buf.subarray(at);
        return out;
      }
      // No delimiter yet: all but its possible beginning can go.
      const keep = delim.byteLength - 1;
      if (buf.byteLength > keep) {
        const out = buf.slice(0, buf.byteLength - keep);
        buf = buf.slice(buf.byteLength - keep);
        return out;
      }
      if (!(await more())) throw new MultipartError('Unexpected end of multipart body');
    }
  };
  try {
    // The preamble, then each part.
    while ((await bodyChunk()) !== null);
    for (;;) {
      while (buf.byteLength < delim.byteLength + 2) if (!(await more())) throw new MultipartError('Unexpected end of multipart body');
      const after = dec.decode(buf.subarray(delim.byteLength, delim.byteLength + 2));
      if (after === '--') return;
      // Transport padding (spaces or tabs) may follow a delimiter before its CRLF.
      let headersEnd: number;
      while ((headersEnd = indexOf(buf, enc.encode('\r\n\r\n'), delim.byteLength)) < 0) {
        if (buf.byteLength > MAX_HEADER_BYTES) throw new MultipartError('Multipart part headers too large');
        if (!(await more())) throw new MultipartError('Unexpected end of multipart body');
      }
      const headerText = dec.decode(buf.subarray(delim.byteLength, headersEnd));
      buf = buf.subarray(headersEnd + 4);
      // The header block starts with the CRLF ending the delimiter line.
      const lines = headerText.split('\r\n').slice(1);
      const header = (name: string) => lines.find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? '';
      const disposition = header('content-disposition');
      const field = headerParam(disposition, 'name');
      if (!/^form-data\b/i.test(disposition) || field === undefined) throw new MultipartError('Multipart part without a form-data name');
      let done = false;
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            try {
              const chunk = done ? null : await bodyChunk();
              if (chunk === null) {
                done = true;
                controller.close();
              } else controller.enqueue(chunk);
            } catch (err) {
              controller.error(err);
            }
          },
        },
        // Pulled only when the caller reads, never ahead of it.
        { highWaterMark: 0 },
      );
      yield { field, filename: headerParam(disposition, 'filename'), type: header('content-type') || 'text/plain', body };
      // Whatever the caller left unread.
      while (!done && (await bodyChunk()) !== null);
      done = true;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
