/** Which note lines are quick actions (Gitlab::QuickActions::Extractor rules for /promote). */
import { describe, expect, it } from 'vitest';
import { extractQuickActions } from '../../src/issuables/quick-actions';

describe('extractQuickActions', () => {
  it('recognises /promote case-insensitively, with arguments, and removes the line', () => {
    expect(extractQuickActions('/promote')).toEqual({ promote: true, remainingBody: '' });
    expect(extractQuickActions('Moving up\n/Promote')).toEqual({ promote: true, remainingBody: 'Moving up' });
    expect(extractQuickActions('/PROMOTE now please\nthanks')).toEqual({ promote: true, remainingBody: 'thanks' });
  });

  it('ignores /promote mid-line, with leading text, inside code fences and quotes', () => {
    for (const body of ['please /promote', '/promoted', ' x /promote', '```\n/promote\n```', '~~~~\n/promote\n~~~~', '> /promote', '>>>\n/promote\n>>>'])
      expect([body, extractQuickActions(body).promote]).toEqual([body, false]);
  });

  it('keeps the body untouched when nothing is executed', () => {
    expect(extractQuickActions('/close\nsome text')).toEqual({ promote: false, remainingBody: '/close\nsome text' });
  });
});
