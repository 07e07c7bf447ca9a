import type { FastifyReply } from 'fastify';

/**
 * A signal aborted when the client disconnects before its answer is sent, so
 * queued work done only for that answer (an extraction) is dropped instead of
 * taking a turn from requests still waiting for theirs.
 */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const onClose = (): void => {
    if (!response.writableFinished) controller.abort();
  };
  response.once('close', onClose);
  return controller.signal;
}
