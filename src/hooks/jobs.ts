/** Queue message types of webhooks (platform/jobs-consumer.ts dispatches by `type`). */
export const DISPATCH_JOB = 'web_hooks.dispatch';
export const DELIVER_JOB = 'web_hooks.deliver';
