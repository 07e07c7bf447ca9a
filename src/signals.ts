// How the long-running commands end: the first SIGTERM or SIGINT starts a
// drain; a second one during the drain gets the default action (the process
// ends at once), so an operator can always cut a slow drain short.

export async function runUntilSignalled(stop: () => Promise<void>, log: (message: string) => void): Promise<void> {
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  log(`${signal}: draining`);
  try {
    await stop();
  } catch (err) {
    console.error(err);
  }
}
