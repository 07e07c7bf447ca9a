// Every id pagewatch hands out is a UUID in its plain 36-character form; ids
// of another shape (urn:uuid:, braces, no dashes) name nothing.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}
