/** The outbound guard of the export upload (Gitlab::UrlBlocker's address checks). */
import { describe, expect, it } from 'vitest';
import { outboundUrlError } from '../../src/import-export/export-upload';

const strict = { allow_local_requests_from_web_hooks_and_services: false, outbound_local_requests_whitelist: [] };

describe('outboundUrlError', () => {
  it('refuses localhost, local and link-local addresses in every spelling WHATWG URL accepts', async () => {
    const cases: [string, string][] = [
      ['http://127.0.0.1/x', 'Requests to localhost are not allowed'],
      ['http://127.1/x', 'Requests to localhost are not allowed'],
      ['http://2130706433/x', 'Requests to localhost are not allowed'],
      ['http://0x7f.1/x', 'Requests to localhost are not allowed'],
      ['http://[::1]/x', 'Requests to localhost are not allowed'],
      ['http://[::ffff:127.0.0.1]/x', 'Requests to localhost are not allowed'],
      ['http://localhost:8080/x', 'Requests to localhost are not allowed'],
      ['http://0.0.0.0/x', 'Requests to localhost are not allowed'],
      ['http://10.1.2.3/x', 'Requests to the local network are not allowed'],
      ['http://172.16.0.1/x', 'Requests to the local network are not allowed'],
      ['http://192.168.1.1/x', 'Requests to the local network are not allowed'],
      ['http://[fd00::1]/x', 'Requests to the local network are not allowed'],
      ['http://169.254.169.254/latest/meta-data', 'Requests to the link local network are not allowed'],
      ['http://[fe80::1]/x', 'Requests to the link local network are not allowed'],
      ['ftp://example.com/x', 'Only allowed schemes are http, https'],
    ];
    for (const [url, reason] of cases) expect([url, await outboundUrlError(url, strict)]).toEqual([url, reason]);
  });

  it('allows public addresses, the allowlist and everything once local requests are allowed', async () => {
    expect(await outboundUrlError('https://93.184.216.34/upload', strict)).toBeNull();
    expect(await outboundUrlError('http://10.0.0.5/upload', { ...strict, outbound_local_requests_whitelist: ['10.0.0.5'] })).toBeNull();
    expect(await outboundUrlError('http://127.0.0.1/upload', { ...strict, allow_local_requests_from_web_hooks_and_services: true })).toBeNull();
  });
});
