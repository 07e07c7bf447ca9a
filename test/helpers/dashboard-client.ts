import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { admin } from './test-app.ts';

// A cookie-keeping client of the dashboard for inject() tests, plus an account
// owner with a password, made the way an operator and an owner would (the
// cookie and CSRF handling is shared with dashboard-over-http.ts).

export const OWNER_PASSWORD = 'correct horse battery staple';

/** Keeps the cookies of a response's Set-Cookie lines in `jar`, dropping those the server expires. */
export function keepCookies(jar: Map<string, string>, setCookieLines: string[]): void {
  for (const line of setCookieLines) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
    if (/Max-Age=0/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

export function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** The CSRF token of a page's form, if it has one. */
export function formToken(body: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
}

function setCookies(res: LightMyRequestResponse): string[] {
  const header = res.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  /** the CSRF token of the last page that had a form */
  csrf = '';

  constructor(
    readonly app: FastifyInstance,
    readonly headers: Record<string, string> = {},
    /** the client address the server sees (sign-in throttling counts per address) */
    readonly remoteAddress = '127.0.0.1',
  ) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    keepCookies(this.cookies, setCookies(res));
    this.csrf = formToken(res.body) ?? this.csrf;
    return res;
  }

  cookieHeader(): string {
    return cookieHeader(this.cookies);
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: 'GET',
        url,
        remoteAddress: this.remoteAddress,
        headers: { ...this.headers, cookie: this.cookieHeader(), ...headers },
      }),
    );
  }

  /** Posts a form; `_csrf` is the last page's token unless the form names one (or null to leave it out). */
  async post(
    url: string,
    form: Record<string, string | string[]> = {},
    options: { csrf?: string | null } = {},
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null) body.append('_csrf', csrf);
    for (const [name, value] of Object.entries(form)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.remoteAddress,
        headers: { ...this.headers, cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    );
  }

  /** Posts a form with a file as a browser does (multipart/form-data, encoded by the platform's FormData), with the last page's `_csrf`. */
  async upload(url: string, file: { field: string; filename: string; content: Buffer | string }): Promise<LightMyRequestResponse> {
    const form = new FormData();
    form.append('_csrf', this.csrf);
    form.append(file.field, new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)]), file.filename);
    const encoded = new Request('http://dashboard.invalid/', { method: 'POST', body: form });
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.remoteAddress,
        headers: { ...this.headers, cookie: this.cookieHeader(), 'content-type': encoded.headers.get('content-type')! },
        payload: Buffer.from(await encoded.arrayBuffer()),
      }),
    );
  }
}

export async function passwordLink(app: FastifyInstance, accountId: string): Promise<{ url: string; token: string }> {
  const res = await admin(app, 'POST', `/accounts/${accountId}/password-link`, {});
  if (res.statusCode !== 201) throw new Error(`password link: ${res.statusCode} ${res.body}`);
  const url = res.json().data.url as string;
  return { url, token: new URL(url).searchParams.get('token')! };
}

/** Sets the owner's password through the one-time link, as the owner would. */
export async function setOwnerPassword(app: FastifyInstance, accountId: string, password = OWNER_PASSWORD): Promise<void> {
  const { token } = await passwordLink(app, accountId);
  const client = new DashboardClient(app);
  await client.get(`/set-password?token=${token}`);
  const res = await client.post('/set-password', { token, password, confirm: password });
  if (res.statusCode !== 303) throw new Error(`set password: ${res.statusCode} ${res.body}`);
}

/**
 * The target form of a new or reconfigured monitor (/monitors/new/{preview}):
 * the second target the page's price in EUR with a decimal comma, alerting when
 * it drops, and the third left empty. The first target is each test's own.
 */
export const PRICE_SECOND_TARGET_FIELDS = {
  t2_element: 'page',
  t2_label: 'Price',
  t2_kind: 'price',
  t2_rule: 'dropped',
  t2_currency: 'EUR',
  t2_decimal: ',',
  t3_element: '',
  t3_kind: 'text',
  t3_rule: 'changed',
};

/** The target form's first target, the product title, checked hourly with email alerts. */
export const TITLE_FIELDS = {
  t1_element: 'sel:#product-title',
  t1_label: 'Title',
  t1_kind: 'text',
  t1_rule: 'changed',
  interval: '60',
  email: 'on',
};

/**
 * Previews `url` through the new-monitor form, past the plan's preview spacing
 * (the manual clock moves 40 s: previews are at least 35 s apart); returns the
 * target form's address (/monitors/new/{preview}).
 */
export async function previewThroughForm(
  client: DashboardClient,
  clock: { advance(ms: number): void },
  url: string,
  loadMode = 'html',
): Promise<string> {
  clock.advance(40_000);
  await client.get('/monitors/new');
  const res = await client.post('/monitors/new', { url, load_mode: loadMode });
  if (res.statusCode !== 303) throw new Error(`preview form: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const location = res.headers.location as string;
  if (!/^\/monitors\/new\/[0-9a-f-]{36}$/.test(location)) throw new Error(`preview form went to ${location}`);
  return location;
}

let ownerCounter = 0;

/** A new account with a dashboard password; returns its id and email. */
export async function createOwner(app: FastifyInstance, plan: 'pro' | 'free' = 'pro'): Promise<{ accountId: string; email: string }> {
  const email = `owner${++ownerCounter}-${Date.now()}@example.com`;
  const res = await admin(app, 'POST', '/accounts', { email, plan });
  if (res.statusCode !== 201) throw new Error(`account: ${res.body}`);
  const accountId = res.json().data.id as string;
  await setOwnerPassword(app, accountId);
  return { accountId, email };
}

/** A client signed in as the owner. */
export async function signedIn(
  app: FastifyInstance,
  email: string,
  password = OWNER_PASSWORD,
  headers: Record<string, string> = {},
): Promise<DashboardClient> {
  const client = new DashboardClient(app, headers);
  await client.get('/sign-in');
  const res = await client.post('/sign-in', { email, password });
  if (res.statusCode !== 303) throw new Error(`sign-in: ${res.statusCode} ${res.body.slice(0, 500)}`);
  return client;
}
