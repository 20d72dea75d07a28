import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { auditDetails, clientIp } from '../../src/users/audit';

const ipOf = async (headers: Record<string, string>, env?: unknown) => {
  const app = new Hono().get('/', (c) => c.text(String(clientIp(c))));
  return (await app.fetch(new Request('http://x/', { headers }), env as never)).text();
};

describe('clientIp for the "Added SSH key" audit event', () => {
  it('prefers CF-Connecting-IP, then the first X-Forwarded-For hop, X-Real-IP, then the Node socket', async () => {
    expect(await ipOf({ 'CF-Connecting-IP': '198.51.100.1', 'X-Forwarded-For': '203.0.113.9' })).toBe('198.51.100.1');
    expect(await ipOf({ 'X-Forwarded-For': '203.0.113.9, 10.0.0.1' })).toBe('203.0.113.9');
    expect(await ipOf({ 'X-Real-IP': '192.0.2.7' })).toBe('192.0.2.7');
    expect(await ipOf({}, { incoming: { socket: { remoteAddress: '127.0.0.5' } } })).toBe('127.0.0.5');
    expect(await ipOf({})).toBe('null');
  });
});

describe('auditDetails', () => {
  it('keeps the documented key order and the event name', () => {
    const d = auditDetails({
      author: { id: 1, name: 'Admin' },
      entity: { id: 5, type: 'User', path: 'jane' },
      target: { id: 9, type: 'Key', details: 'laptop' },
      eventName: 'add_ssh_key',
      message: 'Added SSH key',
      ipAddress: '192.0.2.1',
    });
    expect(Object.keys(d)).toEqual(['custom_message', 'author_name', 'target_id', 'target_type', 'target_details', 'ip_address', 'entity_path', 'event_name']);
    expect(d).toMatchObject({ custom_message: 'Added SSH key', author_name: 'Admin', target_id: 9, entity_path: 'jane' });
  });
});
