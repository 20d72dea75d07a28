/** Custom attribute presenter (GitLab lib/api/entities/custom_attribute.rb). Pure. */
import { z } from 'zod';
import { obj } from '../platform/response-schemas';

export const CustomAttributeSchema = obj({ key: z.string(), value: z.string() }).meta({ id: 'CustomAttribute' });
export type CustomAttribute = z.infer<typeof CustomAttributeSchema>;

export const customAttributeEntity = (a: { key: string; value: string }): CustomAttribute => ({ key: a.key, value: a.value });
