/** The streaming tar reader (src/platform/tar-read.ts) on hand-built archives, in both runtimes. */
import { describe, expect, it } from 'vitest';
import { ArchiveError, memberLines, memberText, readTarGz, type TarLimits } from '../../src/platform/tar-read';
import { type BuildMember, gzip, streamOf, tar, tarGz } from './tar-builder';

async function list(members: BuildMember[], limits?: TarLimits) {
  const out: { name: string; type: string; text: string }[] = [];
  for await (const m of readTarGz(streamOf(await tarGz(members)), limits)) out.push({ name: m.name, type: m.type, text: m.type === 'file' ? await memberText(m.body, 4 << 20) : '' });
  return out;
}
async function refusal(members: BuildMember[], limits?: TarLimits): Promise<string> {
  try {
    await list(members, limits);
  } catch (err) {
    expect(err).toBeInstanceOf(ArchiveError);
    return (err as Error).message;
  }
  throw new Error('archive was accepted');
}

describe('readTarGz', () => {
  it('yields members in order with their bodies, strips ./, reads GNU long names', async () => {
    const long = `./tree/${'x'.repeat(150)}.ndjson`;
    const got = await list([{ name: './', type: '5' }, { name: './VERSION', body: '0.2.4\n' }, { name: long, body: 'a\nb' }, { name: './empty', body: '' }]);
    expect(got).toEqual([
      { name: 'VERSION', type: 'file', text: '0.2.4\n' },
      { name: long.slice(2), type: 'file', text: 'a\nb' },
      { name: 'empty', type: 'file', text: '' },
    ]);
  });

  it('skips the bodies the caller does not read', async () => {
    const names: string[] = [];
    for await (const m of readTarGz(streamOf(await tarGz([{ name: 'a', body: 'x'.repeat(5000) }, { name: 'b', body: 'yy' }])))) {
      names.push(m.name);
      if (m.name === 'b') expect(await memberText(m.body, 10)).toBe('yy');
    }
    expect(names).toEqual(['a', 'b']);
  });

  it.each([
    [{ name: '../evil', body: 'x' }, "Archive member path contains '..'"],
    [{ name: './tree/../../etc/passwd', body: 'x' }, "Archive member path contains '..'"],
    [{ name: '/etc/passwd', body: 'x' }, 'Archive member has an absolute or invalid path'],
    [{ name: './link', type: '2', linkname: '/etc/passwd' }, 'Archive contains a symbolic link'],
    [{ name: './hard', type: '1', linkname: 'VERSION' }, 'Archive contains a hard link'],
    [{ name: './dev', type: '3' }, 'Archive contains a device or fifo'],
    [{ name: './fifo', type: '6' }, 'Archive contains a device or fifo'],
  ] as [BuildMember, string][])('refuses %o', async (member, message) => {
    expect(await refusal([{ name: './VERSION', body: '0.2.4' }, member])).toBe(message);
  });

  it('refuses a member over the member size limit before reading it', async () => {
    expect(await refusal([{ name: 'big', body: 'x'.repeat(3000) }], { maxMemberBytes: 2048 })).toBe('Archive member exceeds the size limit');
  });

  it('stops a gzip bomb at the decompressed size limit while streaming', async () => {
    // 8 MB of zeros compress to a few KB; the limit is 1 MB.
    const bomb = await gzip(tar([{ name: 'zeros', body: new Uint8Array(8 << 20) }]));
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    let read = 0;
    const err = await (async () => {
      try {
        for await (const m of readTarGz(streamOf(bomb), { maxDecompressedBytes: 1 << 20 })) for await (const c of m.body as unknown as AsyncIterable<Uint8Array>) read += c.byteLength;
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).toBe('Decompressed archive size validation failed.');
    expect(read).toBeLessThanOrEqual(1 << 20);
    // 0 = unlimited, as GitLab's setting.
    expect((await list([{ name: 'zeros', body: new Uint8Array(2 << 20) }], { maxDecompressedBytes: 0 })).length).toBe(1);
  });

  it('refuses data that is not gzip, a truncated archive and a bad header checksum', async () => {
    expect(await (async () => {
      try {
        for await (const _ of readTarGz(streamOf(new TextEncoder().encode('not a gzip stream at all')))) void _;
      } catch (e) {
        return (e as Error).message;
      }
    })()).toBe('Unable to decompress the archive');
    const t = tar([{ name: 'a', body: 'x'.repeat(2000) }]);
    expect(await (async () => {
      try {
        for await (const m of readTarGz(streamOf(await gzip(t.subarray(0, 1024))))) await memberText(m.body, 1 << 20);
      } catch (e) {
        return (e as Error).message;
      }
    })()).toBe('Unexpected end of archive');
    const bad = tar([{ name: 'a', body: 'x' }]);
    bad[0] = 0x62;
    expect(await (async () => {
      try {
        for await (const _ of readTarGz(streamOf(await gzip(bad)))) void _;
      } catch (e) {
        return (e as Error).message;
      }
    })()).toBe('Invalid tar header');
  });
});

describe('memberLines', () => {
  it('numbers lines from 0 and flags an oversized line without buffering it', async () => {
    const body = `{"a":1}\n${'y'.repeat(5000)}\n\n{"b":2}`;
    const lines = [];
    for await (const l of memberLines(streamOf(new TextEncoder().encode(body)), 1000)) lines.push(l);
    expect(lines).toEqual([{ line: '{"a":1}', number: 0 }, { line: '', number: 1, tooLong: true }, { line: '{"b":2}', number: 3 }]);
  });
});
