// The operator API names its own fields (expires_in_days, webhook_url); the
// operator typed a command's flags (--days, --url). A refusal is told in the
// flags of the command that sent the request: each API field the command
// fills maps to the flag it came from, and the server's words are kept.

/** API field name → the command's flag that filled it, e.g. { expires_in_days: '--days' }. */
export type FlagNames = Readonly<Record<string, string>>;

type ErrorBody = { error?: { code?: string; message?: string; details?: { field?: string; message?: string }[] } } | null;

/** "scopes[1]" → "--scopes (item 2)"; a field the command does not fill stays as the server named it. */
function flagOf(field: string, flags: FlagNames): string {
  const [, root = field, index] = /^([^.[]+)(?:\[(\d+)\])?/.exec(field) ?? [];
  const flag = Object.hasOwn(flags, root) ? flags[root] : undefined;
  if (flag === undefined) return field;
  return index === undefined ? flag : `${flag} (item ${Number(index) + 1})`;
}

/** The server's message with every field name the command fills spelt as its flag. */
function messageInFlags(message: string, flags: FlagNames): string {
  return Object.entries(flags).reduce(
    (text, [field, flag]) => text.replace(new RegExp(`(?<![\\w-])${field}(?![\\w-])`, 'g'), flag),
    message,
  );
}

/** A refusal as an operator reads it: status, code, message, then one line per field named. */
export function describeRefusal(status: number, body: unknown, flags: FlagNames = {}): string {
  const error = (body as ErrorBody)?.error;
  if (!error) return `HTTP ${status}`;
  const details = (error.details ?? [])
    .map((d) => `\n  ${flagOf(d.field ?? '', flags)}: ${messageInFlags(d.message ?? '', flags)}`)
    .join('');
  return `${status} ${error.code}: ${messageInFlags(error.message ?? '', flags)}${details}`;
}
