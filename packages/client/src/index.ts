export { PagewatchClient, type Created, type WaitOptions, type WriteOptions } from './client.js';
export { PagewatchError, type ErrorDetail } from './errors.js';
export type { ClientOptions } from './http.js';
export { verifyWebhook, webhookSignature, type VerifyOptions, type VerifyResult, type WebhookHeaders } from './webhooks.js';
export type * from './types.js';
export type { components, operations, paths } from './schema.js';
