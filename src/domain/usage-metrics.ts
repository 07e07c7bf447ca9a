// Names of the counters kept per account and UTC period (usage_counters.metric).
// Each metric has one period so a daily and a monthly row never collide.
export const METRICS = {
  apiRequests: { name: 'api_requests', period: 'day' },
  readBytes: { name: 'read_bytes', period: 'day' },
  manualChecks: { name: 'manual_checks', period: 'day' },
  previewsDay: { name: 'previews_day', period: 'day' },
  previewsMonth: { name: 'previews_month', period: 'month' },
  checksHtml: { name: 'checks_html', period: 'month' },
  checksBrowser: { name: 'checks_browser', period: 'month' },
  notificationsEmail: { name: 'notifications_email', period: 'month' },
  notificationsWebhook: { name: 'notifications_webhook', period: 'month' },
  idempotencyKeys: { name: 'idempotency_keys', period: 'day' },
} as const satisfies Record<string, { name: string; period: 'day' | 'month' }>;

export type Metric = (typeof METRICS)[keyof typeof METRICS];
