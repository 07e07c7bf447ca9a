/**
 * Settles with `work`, or fails with `what` if `work` has not settled after `ms`: a condition
 * awaited with a deadline far above what it needs, so a busy machine cannot fail it and a hang does.
 */
export async function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Which settles first: `work` ('work') or a timer of `ms` started now ('timer'); for a documented window. */
export async function firstOf(work: Promise<unknown>, ms: number): Promise<'work' | 'timer'> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<'timer'>((resolve) => (timer = setTimeout(() => resolve('timer'), ms)));
  try {
    return await Promise.race([work.then(() => 'work' as const), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` every 100 ms until it returns true; fails after `ms` with `what`. */
export async function waitUntil(what: string, probe: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
