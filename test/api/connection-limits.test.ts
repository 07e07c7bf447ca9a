import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { waitUntil } from '../helpers/deadline.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

// A client that sends its request a byte at a time, or opens connection
// after connection, cannot hold the server's sockets.

let t: TestApp;
let port: number;
before(async () => {
  t = await startTestApp({ env: { PAGEWATCH_REQUEST_TIMEOUT_SECONDS: '1', PAGEWATCH_MAX_CONNECTIONS_PER_ADDRESS: '3' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

async function opened(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

/**
 * Sends `text` one byte every 200 ms until the server closes the connection (at most 8 s); resolves with the
 * bytes of `text` still unsent then: above 0, the server cut the client off before its request was complete.
 */
async function dribble(socket: Socket, text: string): Promise<number> {
  const closed = once(socket, 'close');
  let i = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed && i < text.length) socket.write(text[i++]!);
  }, 200);
  socket.on('error', () => undefined);
  socket.resume();
  try {
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('still open after 8 s')), 8000))]);
  } finally {
    clearInterval(timer);
  }
  return text.length - i;
}

test('a client dribbling its request headers is cut off', async () => {
  const unsent = await dribble(await opened(), `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`);
  assert.ok(unsent > 0, 'closed only once the headers were complete');
});

test('a client dribbling its request body is cut off', async () => {
  const socket = await opened();
  socket.write('POST /api/v1/previews HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n');
  const unsent = await dribble(socket, `{"url":"${'a'.repeat(480)}"}`);
  assert.ok(unsent > 0, 'closed only once the body was complete');
});

test('one address holds at most the configured number of connections', async () => {
  const sockets = [await opened(), await opened(), await opened()];
  const fourth = connect(port, '127.0.0.1');
  fourth.on('error', () => undefined);
  await once(fourth, 'close');
  const check = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
  assert.equal(check, null, 'still at the cap: refused');
  for (const s of sockets) s.destroy();
  // The server hears the closes a moment later: wait for the address to be served again, with a deadline.
  await waitUntil(
    'closing connections frees the address',
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200,
    10_000,
  );
});
