/**
 * The remote archive's download, on the import job (GitLab FileImporter#copy_archive: the worker
 * downloads `remote_import_url` after the project exists, CommandLineUtil#download). Every hop goes
 * through the outbound guard again, DNS included (the name is resolved anew and the connection
 * pinned to the checked address), and the body streams into the blob store with the size bounded
 * while it arrives. A failure is the import's `import_error`.
 */
import type { BlobStore } from '../platform/blobs';
import type { Settings } from '../settings/settings';
import { checkOutbound } from './export-upload';
import { pinnedRequest, type RemoteAnswer } from './remote-fetch';

/** RemoteFileValidator::FILE_SIZE_LIMIT, the bound when `max_import_size` is 0 (unlimited). */
const FILE_SIZE_LIMIT = 10 * 1024 ** 3;
/** Until the download's headers arrive (the body then streams for as long as it takes). */
const GET_TIMEOUT_MS = 30_000;
/** HTTParty's redirect limit. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** ActiveSupport number_to_human_size: 1024-based, three significant digits, no trailing zeros. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`;
}

/** The size an archive may have: `max_import_size` (MB) when set, else GitLab's 10 GB. */
export const remoteFileLimit = (settings: Pick<Settings, string>) => {
  const mb = Number(settings.max_import_size) || 0;
  return mb > 0 ? mb * 1024 * 1024 : FILE_SIZE_LIMIT;
};

export class Blocked extends Error {}

/** The reason a fetch failed, short enough for a message. */
export const reasonOf = (err: unknown) => String((err as Error)?.message ?? err).slice(0, 200);

/**
 * Follows redirects by hand so each hop passes the guard again (Gitlab::HTTP validates every
 * request it makes, redirects included). Every hop must be https too: a redirect to http would
 * carry the archive in clear text past the https-only check of the first URL.
 */
export async function follow(url: string, settings: Pick<Settings, string>, method: 'HEAD' | 'GET', timeoutMs: number): Promise<RemoteAnswer> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const checked = await checkOutbound(current, settings, { schemes: ['https'], requireResolved: true });
    if ('error' in checked) throw new Blocked(checked.error);
    const res = await pinnedRequest({ url: checked.url, address: checked.address, method, timeoutMs });
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || !location) return res;
    await res.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new Error('too many redirects');
    current = new URL(location, checked.url).href;
  }
}

/**
 * Streams a 2xx answer's body into the blob store at `key`, never more than the limit (a server may
 * send more than its HEAD announced); the reason it failed, or null. Nothing is kept on failure.
 */
export async function storeArchive(blobs: BlobStore, res: RemoteAnswer, settings: Pick<Settings, string>, key: string): Promise<string | null> {
  if (res.status < 200 || res.status > 299 || !res.body) {
    await res.body?.cancel();
    // CommandLineUtil#download's words for any answer but a 200.
    return `unsupported response downloading fragment ${res.status}`;
  }
  const limit = remoteFileLimit(settings);
  let seen = 0;
  const bounded = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > limit) ctl.error(new Error(`Content length is too big (should be at most ${humanSize(limit)})`));
        else ctl.enqueue(chunk);
      },
    }),
  );
  try {
    await blobs.put(key, bounded, 'application/gzip');
  } catch (err) {
    // The key is this download's own: what a failed write left (on Node, the content type's file) goes.
    await blobs.delete(key);
    return reasonOf(err);
  }
  if (seen === 0) {
    await blobs.delete(key);
    return 'The downloaded file is empty';
  }
  return null;
}

/**
 * Downloads `url` (redirects followed, each checked) into the blob store at `key`; the import_error
 * when it fails (the message of what GitLab's download raises: Gitlab::HTTP's `URL is blocked: …`,
 * the connection's error, CommandLineUtil's `unsupported response downloading fragment <code>`), or null.
 */
export async function downloadArchive(blobs: BlobStore, url: string, settings: Pick<Settings, string>, key: string): Promise<string | null> {
  let res: RemoteAnswer;
  try {
    res = await follow(url, settings, 'GET', GET_TIMEOUT_MS);
  } catch (err) {
    return err instanceof Blocked ? `URL is blocked: ${err.message}` : reasonOf(err);
  }
  return storeArchive(blobs, res, settings, key);
}
