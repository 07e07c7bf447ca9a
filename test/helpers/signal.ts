/** A promise a test resolves by hand, to wait on an event instead of sleeping (Promise.withResolvers needs Node 22). */
export function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
