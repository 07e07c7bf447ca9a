export const SCOPES = [
  'monitors:read',
  'monitors:write',
  'changes:read',
  'usage:read',
  'checks:write',
  'feeds:read',
  'feeds:write',
  'channels:read',
  'channels:write',
  'secrets:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
