/** The `BlobStore` port: R2 on Workers, the filesystem on Node (storage/fs-blobs.ts). */
export interface BlobStore {
  put(key: string, body: ReadableStream | ArrayBuffer | Uint8Array | string, contentType?: string): Promise<void>;
  get(key: string): Promise<{ body: ReadableStream; size: number; contentType?: string } | null>;
  delete(key: string): Promise<void>;
}

export const r2Blobs = (bucket: R2Bucket): BlobStore => ({
  async put(key, body, contentType) {
    const options = contentType ? { httpMetadata: { contentType } } : undefined;
    // R2 takes a stream only of known length: a stream of unknown length (an export archive being
    // written) goes up as a multipart upload, one part in memory at a time.
    if (body instanceof ReadableStream) return putStream(bucket, key, body, options);
    await bucket.put(key, body, options);
  },
  async get(key) {
    const obj = await bucket.get(key);
    if (!obj) return null;
    return { body: obj.body, size: obj.size, contentType: obj.httpMetadata?.contentType };
  },
  async delete(key) {
    await bucket.delete(key);
  },
});

/** R2 multipart parts: every part but the last must have the same size, at least 5 MiB. */
const PART_SIZE = 8 * 1024 * 1024;

async function putStream(bucket: R2Bucket, key: string, body: ReadableStream, options?: R2MultipartOptions): Promise<void> {
  const upload = await bucket.createMultipartUpload(key, options);
  const parts: R2UploadedPart[] = [];
  const buffer = new Uint8Array(PART_SIZE);
  let filled = 0;
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      let at = 0;
      while (at < chunk.byteLength) {
        const n = Math.min(PART_SIZE - filled, chunk.byteLength - at);
        buffer.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === PART_SIZE) {
          parts.push(await upload.uploadPart(parts.length + 1, buffer.slice()));
          filled = 0;
        }
      }
    }
    if (filled || !parts.length) parts.push(await upload.uploadPart(parts.length + 1, buffer.slice(0, filled)));
    await upload.complete(parts);
  } catch (err) {
    await upload.abort();
    throw err;
  }
}
