import type { FastifyReply, FastifyRequest } from 'fastify';

// Cookie handling for the dashboard (there is no cookie plugin in the
// dependencies, and two cookies do not need one).

export const SESSION_COOKIE = 'pw_session';
/** a signed-out visitor's secret, which the sign-in and set-password forms' CSRF tokens derive from */
export const PRE_SESSION_COOKIE = 'pw_pre';

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    // Only our own base64url secrets are of interest; anything else is ignored, not decoded.
    if (!cookies.has(name) && /^[A-Za-z0-9_-]{1,128}$/.test(value)) cookies.set(name, value);
  }
  return cookies;
}

/**
 * Secure when the dashboard is served over https: the operator's public URL is
 * https, the connection itself is TLS, or the reverse proxy in front says so
 * with X-Forwarded-Proto. A client forging that header over plain http only
 * makes its own browser drop the cookie.
 */
export function isHttps(request: FastifyRequest, publicUrl: string): boolean {
  if (publicUrl.startsWith('https:')) return true;
  if ((request.raw.socket as { encrypted?: boolean }).encrypted) return true;
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]!.trim().toLowerCase();
  return first === 'https';
}

export function setCookie(reply: FastifyReply, name: string, value: string, options: { secure: boolean; maxAgeSeconds?: number }): void {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  // Max-Age rather than Expires: it does not depend on the server's and the browser's clocks agreeing.
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push('Secure');
  reply.header('set-cookie', parts.join('; '));
}

export function clearCookie(reply: FastifyReply, name: string, secure: boolean): void {
  setCookie(reply, name, '', { secure, maxAgeSeconds: 0 });
}
