import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

// Start-up lines go to the process log, once each, in its format (JSON). They
// are info lines shown at every LOG_LEVEL but silent: where a process listens,
// and on a first run how to begin, is needed whatever the level.

const SHOWS_INFO = ['info', 'debug', 'trace'];

/** The logger of start-up lines: the process's own, or one that shows info where the process's level hides it. */
export function startupLog(log: FastifyBaseLogger): FastifyBaseLogger {
  return log.level === 'silent' || SHOWS_INFO.includes(log.level) ? log : log.child({}, { level: 'info' });
}

/** Listens and logs one line per bound address (Fastify's own line, in pagewatch's words); returns the bound port. */
export async function listenAnnounced(
  app: FastifyInstance,
  options: { port: number; host: string },
  line: (address: string) => string,
): Promise<number> {
  const address = await app.listen({ ...options, listenTextResolver: line });
  // Fastify logs its line at info; where LOG_LEVEL hides info, the start-up log has it instead.
  if (!SHOWS_INFO.includes(app.log.level) && app.log.level !== 'silent') startupLog(app.log).info(line(address));
  return (app.server.address() as AddressInfo).port;
}
