import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook endpoint for tests on 127.0.0.1: it records every request it gets
// (headers and the exact body bytes) and answers from a script a test sets,
// then 200 once the script runs out.

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** answer only after this long (a slow endpoint) */
  delayMs?: number;
  /** answer only once this resolves (an endpoint slow for as long as the test needs) */
  until?: Promise<void>;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** answers for the next requests, in order */
  answer(...answers: ScriptedAnswer[]): void;
  /** forgets what was received and any answers not yet used */
  reset(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let script: ScriptedAnswer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) });
      const answer = script.shift() ?? { status: 200 };
      const reply = () => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end('ok');
      };
      if (answer.until) void answer.until.then(reply);
      else if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: (...answers) => script.push(...answers),
    reset() {
      received.length = 0;
      script = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
