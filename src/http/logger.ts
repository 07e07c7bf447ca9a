import pino, { type DestinationStream } from 'pino';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

// The process's pino logger, one shape for the API and the worker. Request
// lines name the method and path; query parameters that look like secrets
// (tokens, keys, signatures, passwords) are logged as [redacted].

const SECRET_PARAMETER =
  /(^|_|-)(access_token|token|key|api_key|apikey|secret|password|passwd|pwd|sig|signature|auth|authorization|session|code|credential)s?$/i;

/** The URL with the values of credential-like query parameters replaced. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeURIComponentSafe(eq === -1 ? pair : pair.slice(0, eq));
      return eq !== -1 && SECRET_PARAMETER.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function createLogger(level: string, destination?: DestinationStream): FastifyBaseLogger {
  return pino(
    {
      level,
      serializers: {
        req: (request: FastifyRequest) => ({
          method: request.method,
          url: redactUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
        res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
