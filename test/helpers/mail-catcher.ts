import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

// A real SMTP server in the test process (127.0.0.1, no TLS, no auth) that
// keeps every message it accepts, with just enough MIME decoding to read the
// plain-text and HTML parts nodemailer writes.

export interface CaughtMail {
  from: string;
  to: string[];
  headers: Map<string, string>;
  text: string;
  html: string;
}

export interface MailCatcher {
  url: string;
  mails: CaughtMail[];
  /** SMTP reply codes to refuse the next recipients with, in order (e.g. 451, 550) */
  refuse(...codes: number[]): void;
  /** from now on leaves every sender waiting at MAIL FROM, in the middle of its send, until `release` */
  hold(): void;
  /** answers the senders still waiting and holds no more */
  release(): void;
  /** senders waiting at MAIL FROM right now (one whose connection closed no longer counts) */
  readonly held: number;
  reset(): void;
  close(): Promise<void>;
}

function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding?.toLowerCase() === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`);
    // every non-escaped character is ASCII in quoted-printable, so URI decoding restores the UTF-8 bytes
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
  }
  return body;
}

function splitMessage(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  return { headers: parseHeaders(raw.slice(0, end)), body: raw.slice(end + 4) };
}

function parseMail(raw: string, from: string, to: string[]): CaughtMail {
  const { headers, body } = splitMessage(raw);
  const parts = new Map<string, string>();
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get('content-type') ?? '')?.[1];
  const sections = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((s) => splitMessage(s.replace(/^\r\n/, '')))
    : [{ headers, body }];
  for (const section of sections) {
    const type = (section.headers.get('content-type') ?? 'text/plain').split(';')[0]!.trim();
    parts.set(type, decodeBody(section.body.replace(/\r\n$/, ''), section.headers.get('content-transfer-encoding')).replace(/\r\n/g, '\n'));
  }
  return { from, to, headers, text: parts.get('text/plain') ?? '', html: parts.get('text/html') ?? '' };
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const mails: CaughtMail[] = [];
  let refusals: number[] = [];
  let holding = false;
  const waiting = new Map<string, () => void>();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    // no reverse DNS lookup of the client: these tests send nothing beyond loopback
    disableReverseLookup: true,
    onMailFrom(_address, session, callback) {
      if (holding) waiting.set(session.id, () => callback());
      else callback();
    },
    onClose(session) {
      waiting.delete(session.id);
    },
    onRcptTo(_address, _session, callback) {
      const code = refusals.shift();
      if (code === undefined) return callback();
      callback(Object.assign(new Error(code >= 500 ? 'no such mailbox' : 'try again later'), { responseCode: code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push(
          parseMail(
            Buffer.concat(chunks).toString('utf8'),
            from,
            session.envelope.rcptTo.map((r) => r.address),
          ),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    refuse: (...codes) => refusals.push(...codes),
    hold: () => void (holding = true),
    release() {
      holding = false;
      for (const answer of waiting.values()) answer();
      waiting.clear();
    },
    get held() {
      return waiting.size;
    },
    reset() {
      mails.length = 0;
      refusals = [];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
