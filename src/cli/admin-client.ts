// A small client of the operator API for `pagewatch admin …`.

export interface AdminClientOptions {
  baseUrl: string;
  token: string;
}

type ErrorBody = { error?: { code?: string; message?: string; details?: { field?: string; message?: string }[] } } | null;

/** The server's refusal as an operator reads it: status, code, message, then one line per detail. */
export class AdminRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const error = (body as ErrorBody)?.error;
    const details = (error?.details ?? []).map((d) => `\n  ${d.field ?? ''}: ${d.message ?? ''}`).join('');
    super(error ? `${status} ${error.code}: ${error.message}${details}` : `HTTP ${status}`);
  }
}

/** No answer at all from the server: the address is wrong or nothing listens there. */
export class ServerUnreachableError extends Error {}

export async function adminRequest(options: AdminClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ServerUnreachableError(
      `cannot reach the pagewatch server at ${baseUrl} (${cause?.code ?? cause?.message ?? (err as Error).message}); ` +
        'is it running, and does PAGEWATCH_URL name it?',
    );
  }
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (!response.ok) throw new AdminRequestError(response.status, parsed);
  return parsed;
}
