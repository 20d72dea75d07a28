/**
 * Found by the fuzzer (test/fuzz): the route of the reference page's script also answers its `.json`
 * variant, and the assets' 404 for that name came back as text/plain instead of a JSON error body.
 */
import { describe, expect, it } from 'vitest';
import { fetchApi } from '../support';

describe('GET /-/api-docs/scalar.js under another name', () => {
  it('answers the catch-all JSON 404', async () => {
    const res = await fetchApi('/-/api-docs/scalar.js.json');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: '404 Not Found' });
    // The script itself is still served.
    expect((await fetchApi('/-/api-docs/scalar.js')).status).toBe(200);
  });
});
