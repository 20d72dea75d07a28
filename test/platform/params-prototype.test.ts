/**
 * Found by the fuzzer (test/fuzz): one request naming `__proto__[x]` in its query string or form body
 * used to assign Object.prototype.x for the whole process, and every later request answered 500.
 */
import { describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';

describe('parameters named after Object.prototype members', () => {
  it('are ordinary unknown parameters in the query string, a form body and a multipart body', async () => {
    const hostile = '__proto__[value]=1&__proto__[get]=x&constructor[prototype][polluted]=yes';
    const query = await api(`/projects?${hostile}`);
    expect(query.status).toBe(200);
    const form = await api('/user/status', { method: 'PUT', token: rootToken, form: { '__proto__[value]': '1', '__proto__[get]': 'x', message: 'still here' } });
    expect(form.status).toBe(200);
    const multipart = new FormData();
    multipart.append('__proto__[writable]', 'true');
    multipart.append('message', 'multipart');
    expect((await api('/user/status', { method: 'PUT', token: rootToken, multipart })).status).toBe(200);

    expect(({} as Record<string, unknown>).value).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const after = await api('/user/status', { token: rootToken });
    expect(after.status).toBe(200);
    expect(after.body.message).toBe('multipart');
  });
});
