import { parseArgs } from 'node:util';
import { AdminRequestError, adminRequest, type AdminClientOptions } from './admin-client.ts';
import { describeRefusal, type FlagNames } from './refusal-in-flags.ts';

const USAGE = `pagewatch admin — operator tasks through a running server's operator API
Needs PAGEWATCH_URL (default http://127.0.0.1:8080) and PAGEWATCH_ADMIN_TOKEN.

  accounts list                  (one line each: id, email, plan, created, monitors; newest first)
  accounts create --email E --plan pro|free
  accounts get ID
  accounts set-plan ID --plan pro|free
  accounts set-webhook ID --url URL | --remove
  accounts set-time-zone ID --zone ZONE   (IANA name, e.g. Europe/Berlin; default UTC)
  accounts set-email-mode ID --mode each|daily|weekly [--hour 0..23]   (change emails per check or as a digest at the hour)
  accounts password-link ID      (one-time dashboard set-password link, 24 h)
  tokens create --account ID --name N --scopes a,b --days 1..365
  tokens list --account ID
  tokens revoke TOKEN_ID
  api status | api close [--retry-after SECONDS] | api open

Add --json for JSON output.`;

type Options = {
  email?: string;
  plan?: string;
  url?: string;
  remove?: boolean;
  account?: string;
  name?: string;
  scopes?: string;
  days?: string;
  'retry-after'?: string;
  zone?: string;
  mode?: string;
  hour?: string;
  json?: boolean;
};

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

class UsageError extends Error {}

// Checked here so that a mistyped flag is refused in the command's words,
// naming the flag, rather than by the API's field names and schema text.
function days(value: string | undefined): number {
  const text = required(value, '--days');
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 365) {
    throw new UsageError(`--days must be a whole number of days from 1 to 365, not "${text}"`);
  }
  return Number(text);
}

function webhookUrl(value: string | undefined): string {
  const text = required(value, '--url');
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
    throw new UsageError(`--url must be an http:// or https:// address, such as https://hooks.example.com/pagewatch, not "${text}"`);
  }
  return text;
}

type ListedAccount = { id: string; email: string; plan: string; created_at: string; monitors: number };

/** Every account, following the list's cursor to its end. */
async function allAccounts(client: AdminClientOptions): Promise<ListedAccount[]> {
  const accounts: ListedAccount[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = (await adminRequest(client, 'GET', `/accounts?limit=100${query}`)) as {
      data: ListedAccount[];
      meta: { next_cursor: string | null };
    };
    accounts.push(...page.data);
    cursor = page.meta.next_cursor;
  } while (cursor !== null);
  return accounts;
}

function accountLines(accounts: ListedAccount[]): string {
  if (accounts.length === 0) return 'no accounts';
  return accounts
    .map((a) => `${a.id}  ${a.email}  ${a.plan}  created ${a.created_at}  ${a.monitors} monitor${a.monitors === 1 ? '' : 's'}`)
    .join('\n');
}

interface Command {
  /** the API field each flag of the command fills, so that a refusal names the flag */
  flags: FlagNames;
  send(client: AdminClientOptions, id: string | undefined, o: Options): Promise<unknown>;
}

const COMMANDS: Record<string, Command> = {
  'accounts list': {
    flags: {},
    send: async (client) => {
      const accounts = await allAccounts(client);
      return { data: accounts, text: accountLines(accounts) };
    },
  },
  'accounts create': {
    flags: { email: '--email', plan: '--plan' },
    send: (client, _id, o) =>
      adminRequest(client, 'POST', '/accounts', { email: required(o.email, '--email'), plan: required(o.plan, '--plan') }),
  },
  'accounts get': { flags: {}, send: (client, id) => adminRequest(client, 'GET', `/accounts/${required(id, 'ID')}`) },
  'accounts set-plan': {
    flags: { plan: '--plan' },
    send: (client, id, o) => adminRequest(client, 'PATCH', `/accounts/${required(id, 'ID')}`, { plan: required(o.plan, '--plan') }),
  },
  'accounts set-webhook': {
    flags: { webhook_url: '--url' },
    send: (client, id, o) =>
      adminRequest(client, 'PATCH', `/accounts/${required(id, 'ID')}`, { webhook_url: o.remove ? null : webhookUrl(o.url) }),
  },
  'accounts set-time-zone': {
    flags: { time_zone: '--zone' },
    send: (client, id, o) => adminRequest(client, 'PATCH', `/accounts/${required(id, 'ID')}`, { time_zone: required(o.zone, '--zone') }),
  },
  'accounts set-email-mode': {
    flags: { email_mode: '--mode', digest_hour: '--hour' },
    send: (client, id, o) =>
      adminRequest(client, 'PATCH', `/accounts/${required(id, 'ID')}`, {
        email_mode: required(o.mode, '--mode'),
        // A whole number goes as one; anything else goes as typed, for the server to refuse naming --hour.
        ...(o.hour === undefined ? {} : { digest_hour: /^\d+$/.test(o.hour) ? Number(o.hour) : o.hour }),
      }),
  },
  'accounts password-link': {
    flags: {},
    send: (client, id) => adminRequest(client, 'POST', `/accounts/${required(id, 'ID')}/password-link`, {}),
  },
  'tokens create': {
    flags: { name: '--name', scopes: '--scopes', expires_in_days: '--days' },
    send: (client, _id, o) =>
      adminRequest(client, 'POST', `/accounts/${required(o.account, '--account')}/tokens`, {
        name: required(o.name, '--name'),
        scopes: required(o.scopes, '--scopes')
          .split(',')
          .map((s) => s.trim()),
        expires_in_days: days(o.days),
      }),
  },
  'tokens list': {
    flags: {},
    send: (client, _id, o) => adminRequest(client, 'GET', `/accounts/${required(o.account, '--account')}/tokens`),
  },
  'tokens revoke': {
    flags: {},
    send: async (client, id) => {
      await adminRequest(client, 'DELETE', `/tokens/${required(id, 'TOKEN_ID')}`);
      return { data: { revoked: id } };
    },
  },
  'api status': { flags: {}, send: (client) => adminRequest(client, 'GET', '/api-status') },
  'api close': {
    flags: { retry_after_seconds: '--retry-after' },
    send: (client, _id, o) =>
      adminRequest(client, 'PUT', '/api-status', {
        open: false,
        ...(o['retry-after'] ? { retry_after_seconds: Number(o['retry-after']) } : {}),
      }),
  },
  'api open': { flags: {}, send: (client) => adminRequest(client, 'PUT', '/api-status', { open: true }) },
};

function commandOf(words: string[]): Command {
  const key = `${words[0]} ${words[1]}`;
  if (!Object.hasOwn(COMMANDS, key)) throw new UsageError(`unknown admin command: ${words.join(' ') || '(none)'}`);
  return COMMANDS[key]!;
}

function human(value: unknown, indent = ''): string {
  if (Array.isArray(value)) return value.map((v) => human(v, indent)).join('\n\n');
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? `${indent}${k}:\n${human(v, `${indent}  `)}`
          : `${indent}${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`,
      )
      .join('\n');
  }
  return `${indent}${String(value)}`;
}

export async function adminCommand(args: string[], env: Record<string, string | undefined>): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        plan: { type: 'string' },
        url: { type: 'string' },
        remove: { type: 'boolean' },
        account: { type: 'string' },
        name: { type: 'string' },
        scopes: { type: 'string' },
        days: { type: 'string' },
        'retry-after': { type: 'string' },
        zone: { type: 'string' },
        mode: { type: 'string' },
        hour: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    console.log(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  const token = env.PAGEWATCH_ADMIN_TOKEN;
  if (!token) {
    console.error('PAGEWATCH_ADMIN_TOKEN is not set');
    return 2;
  }
  const client = { baseUrl: env.PAGEWATCH_URL || 'http://127.0.0.1:8080', token };
  let command: Command | undefined;
  try {
    command = commandOf(parsed.positionals);
    const result = await command.send(client, parsed.positionals[2], parsed.values);
    const { data = result, text } = result as { data?: unknown; text?: string };
    console.log(parsed.values.json ? JSON.stringify(data, null, 2) : (text ?? human(data)));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    const refusal = err instanceof AdminRequestError ? describeRefusal(err.status, err.body, command?.flags) : (err as Error).message;
    console.error(`pagewatch admin: ${refusal}`);
    return 1;
  }
}
