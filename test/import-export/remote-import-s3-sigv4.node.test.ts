/**
 * The SigV4 signer (src/platform/sigv4.ts) against AWS's published examples: the signature suite's
 * "get-vanilla" request, its "get-vanilla-query-order-key-case" (query sorted before signing), and
 * the S3 guide's "GET Object" example (ranged GET with x-amz-content-sha256) and its presigned URL example.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_SHA256, presignV4, signV4, uriEncode } from '../../src/platform/sigv4';

const SUITE = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 'service' };
const AT = new Date('2015-08-30T12:36:00Z');

describe('signV4', () => {
  it('signs get-vanilla as AWS publishes it', async () => {
    const headers = await signV4({ method: 'GET', url: new URL('https://example.amazonaws.com/') }, SUITE, AT);
    expect(headers).toEqual({
      'x-amz-date': '20150830T123600Z',
      authorization: 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    });
  });

  it('sorts the query before signing (get-vanilla-query-order-key-case)', async () => {
    const headers = await signV4({ method: 'GET', url: new URL('https://example.amazonaws.com/?Param2=value2&Param1=value1') }, SUITE, AT);
    expect(headers.authorization).toMatch(/Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500$/);
  });

  it("signs the S3 guide's GET Object example", async () => {
    const cred = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 's3' };
    const headers = await signV4({ method: 'GET', url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'), headers: { Range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_SHA256 } }, cred, new Date('2013-05-24T00:00:00Z'));
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(headers.Range).toBe('bytes=0-9');
  });

  it("presigns the S3 guide's query-string example (GET test.txt, one day)", async () => {
    const cred = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 's3' };
    const url = await presignV4({ method: 'GET', url: new URL('https://examplebucket.s3.amazonaws.com/test.txt') }, cred, 86400, new Date('2013-05-24T00:00:00Z'));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request',
      'X-Amz-Date': '20130524T000000Z',
      'X-Amz-Expires': '86400',
      'X-Amz-SignedHeaders': 'host',
      'X-Amz-Signature': 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    });
    expect(url.origin + url.pathname).toBe('https://examplebucket.s3.amazonaws.com/test.txt');
  });

  it('encodes as RFC 3986 (the characters encodeURIComponent keeps too)', () => {
    expect(uriEncode("a b/c!'()*~._-")).toBe('a%20b%2Fc%21%27%28%29%2A~._-');
    expect(uriEncode('dir/file name.tar.gz', true)).toBe('dir/file%20name.tar.gz');
  });
});
