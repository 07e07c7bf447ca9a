import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { OutboundProxy } from '../../domain/network/outbound-proxies.ts';

// Per-load credentials for the filtering proxy. Each browser context gets its
// own username/password, so the proxy (a) serves no one without a live
// session, which matters when it must listen where a remote browser can reach
// it, and (b) knows which load a refused or unreachable destination belongs
// to, even while several loads run at once.

export interface ProxyEvent {
  /** blocked: refused by the SSRF guard or proxy rules; unreachable: vetted but the connection failed */
  kind: 'blocked' | 'unreachable';
  host: string;
  port: number;
  reason: string;
}

export interface ProxySession {
  readonly username: string;
  readonly password: string;
  /** the operator's proxy this load's connections go through after the guard (DESIGN §5 Outbound proxies); none: direct */
  readonly upstream?: OutboundProxy;
  /** refusals and failures seen for this session, in order */
  readonly events: readonly ProxyEvent[];
  record(event: ProxyEvent): void;
  /** credentials stop working */
  close(): void;
}

// A bound on what one session remembers, so a page that hammers refused
// addresses cannot grow memory without limit.
const MAX_EVENTS = 200;

export class ProxySessions {
  readonly #live = new Map<string, { password: Buffer; session: ProxySession }>();

  open(upstream?: OutboundProxy): ProxySession {
    const username = `pw-${randomBytes(9).toString('hex')}`;
    const password = randomBytes(18).toString('base64url');
    const events: ProxyEvent[] = [];
    const session: ProxySession = {
      username,
      password,
      ...(upstream ? { upstream } : {}),
      events,
      record: (event) => {
        if (events.length < MAX_EVENTS) events.push(event);
      },
      close: () => void this.#live.delete(username),
    };
    this.#live.set(username, { password: Buffer.from(password), session });
    return session;
  }

  /** the live session named by a Proxy-Authorization: Basic header, if the password matches */
  authenticate(header: string | undefined): ProxySession | null {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    if (!match) return null;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const entry = this.#live.get(decoded.slice(0, colon));
    if (!entry) return null;
    const given = Buffer.from(decoded.slice(colon + 1));
    if (given.length !== entry.password.length || !timingSafeEqual(given, entry.password)) return null;
    return entry.session;
  }
}
