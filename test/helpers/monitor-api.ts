import type { FastifyInstance } from 'fastify';
import { bearer } from './test-app.ts';

// Customer-side calls used by many tests: load a preview, create a monitor from it.

export const TITLE_TARGET = {
  id: 'title',
  label: 'Title',
  kind: 'text',
  selection: { scope: 'selector', selector: '#product-title' },
  rule: 'changed',
};
export const PRICE_TARGET = { id: 'price', label: 'Price', kind: 'price', selection: { scope: 'page' }, currency: 'EUR', rule: 'dropped' };

/** POST /previews of `url`, the answer as it came (refusals included). */
export function requestPreview(app: FastifyInstance, token: string, url: string, loadMode = 'html') {
  return app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { url, load_mode: loadMode },
  });
}

export async function loadPreview(app: FastifyInstance, token: string, url: string, loadMode = 'html'): Promise<string> {
  const res = await requestPreview(app, token, url, loadMode);
  if (res.statusCode !== 201) throw new Error(`preview failed: ${res.statusCode} ${res.body}`);
  return res.json().data.id;
}

export function postMonitor(
  app: FastifyInstance,
  token: string,
  body: unknown,
  key: string | null = `key-${Math.random().toString(36).slice(2)}`,
) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/monitors',
    headers: { ...bearer(token), 'content-type': 'application/json', ...(key === null ? {} : { 'idempotency-key': key }) },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** PATCH /api/v1/monitors/{id} with a JSON body. */
export function patchMonitor(app: FastifyInstance, token: string, id: string, body: unknown) {
  return app.inject({
    method: 'PATCH',
    url: `/api/v1/monitors/${id}`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/** Previews `url` and creates a monitor of it; returns the monitor id. */
export async function createMonitorFor(
  app: FastifyInstance,
  token: string,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const previewId = await loadPreview(app, token, url);
  const res = await postMonitor(app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 5, ...extra });
  if (res.statusCode !== 201) throw new Error(`monitor failed: ${res.statusCode} ${res.body}`);
  return res.json().data.id;
}
