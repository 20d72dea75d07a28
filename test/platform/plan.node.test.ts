import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config';
import { paid, planAllows, requirePlan } from '../../src/platform/plan';

describe('plan gating', () => {
  it('orders free < premium < ultimate', () => {
    const free = loadConfig({ INSTANCE_PLAN: 'free' });
    const premium = loadConfig({ INSTANCE_PLAN: 'premium' });
    const ultimate = loadConfig({ INSTANCE_PLAN: 'ultimate' });
    expect([planAllows(free, 'premium'), planAllows(premium, 'premium'), planAllows(premium, 'ultimate'), planAllows(ultimate, 'ultimate')]).toEqual([false, true, false, true]);
  });
  it('answers 403 when the plan lacks the feature and hides paid attributes', () => {
    const free = loadConfig({ INSTANCE_PLAN: 'free' });
    expect(() => requirePlan(free, 'ultimate')).toThrowError(expect.objectContaining({ status: 403, body: { message: '403 Forbidden' } }));
    expect(paid(free, 'premium', { weight: 3 })).toEqual({});
    expect(paid(loadConfig({}), 'premium', { weight: 3 })).toEqual({ weight: 3 });
  });
  it('defaults to ultimate and treats unknown plan names as ultimate', () => {
    expect(loadConfig({}).plan).toBe('ultimate');
    expect(loadConfig({ INSTANCE_PLAN: 'Premium' }).plan).toBe('premium');
  });
});
