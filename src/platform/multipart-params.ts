/**
 * Multipart parameters of a route that declares a `fileSink` (router.ts): the text fields are read
 * (bounded), and each file part's body is handed to the sink as a stream while it arrives; the
 * sink's answer (a File standing for what it stored) becomes the parameter. The route's body limit
 * still bounds the request as a whole: the sink enforces its own limit on the file's bytes.
 */
import type { Context } from 'hono';
import { grapeError, tooLarge } from './errors';
import { PARAMS_LIMIT, tooManyParams } from './limits';
import { MultipartError, multipartBoundary, multipartParts } from './multipart-stream';

export const FILE_SINK = 'fileSink';

export interface FileSink {
  /** Stores a file part as it arrives; answers the parameter's value (a File standing for it). */
  store(c: Context, part: { field: string; filename: string; type: string; body: ReadableStream<Uint8Array> }): Promise<File>;
  /** Removes what `store` kept: the router calls it when the request fails, so a refused request leaves nothing stored. */
  discard(c: Context): Promise<void>;
}

/** Bytes of all text fields together (the file parts are the sink's). */
const MAX_FIELD_BYTES = 1024 * 1024;

export async function streamedMultipart(c: Context, sink: FileSink, queryPairs: number, set: (out: Record<string, unknown>, key: string, value: unknown) => void): Promise<Record<string, unknown>> {
  const boundary = multipartBoundary(c.req.header('content-type') ?? '');
  const body = c.req.raw.body;
  if (!boundary || !body) throw grapeError('Invalid multipart body');
  const out: Record<string, unknown> = {};
  let pairs = queryPairs;
  let fieldBytes = 0;
  try {
    for await (const part of multipartParts(body, boundary)) {
      if (++pairs > PARAMS_LIMIT) throw tooManyParams(pairs);
      if (part.filename !== undefined) {
        set(out, part.field, await sink.store(c, { field: part.field, filename: part.filename, type: part.type, body: part.body }));
        continue;
      }
      const chunks: Uint8Array[] = [];
      for await (const chunk of part.body as unknown as AsyncIterable<Uint8Array>) {
        fieldBytes += chunk.byteLength;
        if (fieldBytes > MAX_FIELD_BYTES) throw tooLarge();
        chunks.push(chunk);
      }
      set(out, part.field, new TextDecoder().decode(await new Blob(chunks as BlobPart[]).arrayBuffer()));
    }
  } catch (err) {
    if (err instanceof MultipartError) throw grapeError('Invalid multipart body');
    throw err;
  }
  return out;
}
