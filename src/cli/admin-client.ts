// A small client of the operator API for `pagewatch admin …`.

export interface AdminClientOptions {
  baseUrl: string;
  token: string;
}

export class AdminRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    super(error ? `${status} ${error.code}: ${error.message}` : `HTTP ${status}`);
  }
}

export async function adminRequest(options: AdminClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${options.baseUrl.replace(/\/+$/, '')}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!response.ok) throw new AdminRequestError(response.status, parsed);
  return parsed;
}
