// Playwright calls without a timeout of their own, bounded by the load's deadline.

export class DeadlineError extends Error {}

/** the promise's outcome, or a DeadlineError once `ms` have passed */
export function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError('deadline')), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
