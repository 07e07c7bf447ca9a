import { ADMIN_TOKEN } from './test-credentials.ts';
import { cookieHeader, formToken, keepCookies, OWNER_PASSWORD } from './dashboard-client.ts';

// The dashboard over real HTTP, for tests against running pagewatch processes
// (DashboardClient is the inject() counterpart): one session's cookies and the
// last form's CSRF token, sent to whichever node a request names. Sessions are
// rows of the shared store, so a session made on one node is valid on another.

export interface DashboardAnswer {
  status: number;
  location: string | null;
  body: string;
}

export class HttpDashboardSession {
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  private async send(node: string, path: string, init: RequestInit = {}): Promise<DashboardAnswer> {
    const res = await fetch(`${node}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader(this.cookies) },
    });
    keepCookies(this.cookies, res.headers.getSetCookie());
    const body = await res.text();
    this.csrf = formToken(body) ?? this.csrf;
    return { status: res.status, location: res.headers.get('location'), body };
  }

  get(node: string, path: string): Promise<DashboardAnswer> {
    return this.send(node, path);
  }

  /** Posts a form with the last page's `_csrf`. */
  post(node: string, path: string, form: Record<string, string>): Promise<DashboardAnswer> {
    return this.send(node, path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: this.csrf, ...form }).toString(),
    });
  }

  /** Posts a file as a browser does (multipart/form-data) with the last page's `_csrf`. */
  upload(node: string, path: string, file: { field: string; filename: string; content: string }): Promise<DashboardAnswer> {
    const form = new FormData();
    form.append('_csrf', this.csrf);
    form.append(file.field, new Blob([file.content]), file.filename);
    return this.send(node, path, { method: 'POST', body: form });
  }
}

/** Sets the owner's password through a one-time link from the operator API at `node`, as the owner would. */
export async function setOwnerPasswordOn(node: string, accountId: string): Promise<void> {
  const link = await fetch(`${node}/admin/v1/accounts/${accountId}/password-link`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  if (link.status !== 201) throw new Error(`password link: ${link.status} ${await link.text()}`);
  const token = new URL((await link.json()).data.url as string).searchParams.get('token')!;
  const session = new HttpDashboardSession();
  await session.get(node, `/set-password?token=${token}`);
  const set = await session.post(node, '/set-password', { token, password: OWNER_PASSWORD, confirm: OWNER_PASSWORD });
  if (set.status !== 303) throw new Error(`set password: ${set.status} ${set.body.slice(0, 500)}`);
}

/** A session signed in on `node` through the sign-in form, as the owner whose password is set. */
export async function signedInOn(node: string, email: string): Promise<HttpDashboardSession> {
  const session = new HttpDashboardSession();
  await session.get(node, '/sign-in');
  const signIn = await session.post(node, '/sign-in', { email, password: OWNER_PASSWORD });
  if (signIn.status !== 303) throw new Error(`sign-in: ${signIn.status} ${signIn.body.slice(0, 500)}`);
  return session;
}
