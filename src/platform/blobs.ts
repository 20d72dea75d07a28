/** The `BlobStore` port: R2 on Workers, the filesystem on Node (storage/fs-blobs.ts). */
export interface BlobStore {
  put(key: string, body: ReadableStream | ArrayBuffer | Uint8Array | string, contentType?: string): Promise<void>;
  get(key: string): Promise<{ body: ReadableStream; size: number; contentType?: string } | null>;
  delete(key: string): Promise<void>;
}

export const r2Blobs = (bucket: R2Bucket): BlobStore => ({
  async put(key, body, contentType) {
    await bucket.put(key, body, contentType ? { httpMetadata: { contentType } } : undefined);
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
