import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FixtureServer } from './fixture-server.ts';

// A page whose answers a test holds back: while the gate is closed every
// request waits (at most `holdMs`, so nothing hangs), which keeps checks in
// the middle of their load for as long as the test needs.

export interface GatedPages {
  /** answers with this title from now on */
  setTitle(title: string): void;
  close(): void;
  open(): void;
  /** requests waiting at the gate right now */
  readonly waiting: number;
}

export function gatedPages(sites: FixtureServer[], paths: string[], holdMs = 30_000): GatedPages {
  let title = 'Before';
  let release: (() => void) | null = null;
  let gate: Promise<void> = Promise.resolve();
  let waiting = 0;
  const handler = async (_req: IncomingMessage, res: ServerResponse) => {
    waiting++;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([gate, new Promise((r) => (timer = setTimeout(r, holdMs)))]);
    clearTimeout(timer);
    waiting--;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body><h1 id="title">${title}</h1></body></html>`);
  };
  for (const [i, path] of paths.entries()) sites[i % sites.length]!.route(path, handler);
  return {
    setTitle: (next) => void (title = next),
    close() {
      if (release === null) gate = new Promise((r) => (release = r));
    },
    open() {
      release?.();
      release = null;
    },
    get waiting() {
      return waiting;
    },
  };
}
