/** A stream of `n` chunks of `size` bytes (chunk i filled with i % 256) that errors at chunk `failAt`: the blob-store stream tests of both runtimes. */
export const chunks = (n: number, size: number, failAt?: number) => {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (i === failAt) return ctrl.error(new Error('writer failed'));
      if (i === n) return ctrl.close();
      ctrl.enqueue(new Uint8Array(size).fill(i++ % 256));
    },
  });
};
