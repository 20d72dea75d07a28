/**
 * The instance plan (free, premium, ultimate) gates paid endpoints and attributes in one place.
 * Spec: "where a feature is unavailable in the plan, the service answers 403".
 */
import type { Config, Plan } from './config';
import { forbidden } from './errors';

const RANK: Record<Plan, number> = { free: 0, premium: 1, ultimate: 2 };

/** True when the configured plan includes features of `tier`. */
export const planAllows = (config: Pick<Config, 'plan'>, tier: Plan): boolean => RANK[config.plan] >= RANK[tier];

/** Guard for paid endpoints: 403 `{"message":"403 Forbidden"}` when the plan lacks the feature. */
export function requirePlan(config: Pick<Config, 'plan'>, tier: Plan): void {
  if (!planAllows(config, tier)) throw forbidden();
}

/** Paid attributes of an entity: included only when the plan has them (`{...paid(config, 'premium', {weight})}`). */
export function paid<T extends Record<string, unknown>>(config: Pick<Config, 'plan'>, tier: Plan, attrs: T): Partial<T> {
  return planAllows(config, tier) ? attrs : {};
}
