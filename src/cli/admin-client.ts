// A small client of the operator API for `pagewatch admin …`.

import { describeRefusal } from './refusal-in-flags.ts';

export interface AdminClientOptions {
  baseUrl: string;
  token: string;
}

/** The server's refusal; `describeRefusal` words it for the command that sent the request. */
export class AdminRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describeRefusal(status, body));
  }
}

/** No answer at all from the server: the address is wrong or nothing listens there. */
export class ServerUnreachableError extends Error {}

export async function adminRequest(options: AdminClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await send(options, method, path, body);
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (!response.ok) throw new AdminRequestError(response.status, parsed);
  return parsed;
}

/** A GET whose answer is a file (a backup), not JSON; a refusal is JSON as ever. */
export async function adminDownload(options: AdminClientOptions, path: string): Promise<Buffer> {
  const response = await send(options, 'GET', path);
  if (!response.ok) {
    const text = await response.text();
    throw new AdminRequestError(response.status, text ? JSON.parse(text) : null);
  }
  return Buffer.from(await response.arrayBuffer());
}

async function send(options: AdminClientOptions, method: string, path: string, body?: unknown): Promise<Response> {
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
  return response;
}
