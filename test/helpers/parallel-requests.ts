import { createAccountVia } from './pagewatch-process.ts';

// What the parallel-write tests over two API processes share: an account
// made across both nodes, and the answers to many requests counted by kind.

export interface ApiAccount {
  accountId: string;
  email: string;
  /** the account's API headers (bearer token, JSON) */
  headers: Record<string, string>;
}

/** An account made through the first node, its token through the second. */
export async function createAccountOver(nodes: [string, string], plan: 'pro' | 'free' = 'pro'): Promise<ApiAccount> {
  const email = `parallel-${Date.now()}-${Math.random()}@example.com`;
  const { accountId, token } = await createAccountVia(nodes[0], { email, tokenName: 'parallel', tokenNode: nodes[1], plan });
  return { accountId, email, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } };
}

/** The answers counted by status, refusals by status and error code, e.g. `{ 201: 3, '422 preview_invalid': 22 }`. */
export async function statusCounts(responses: Response[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of responses) {
    const body = r.status === 204 ? null : await r.json();
    const key = r.status < 300 ? String(r.status) : `${r.status} ${body?.error?.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
