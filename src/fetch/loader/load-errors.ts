// A loader that cannot take a load now throws one of these: nothing was
// fetched, so the page is not at fault and the caller may try again later.
// The HTTP error handler turns them into 503s; the engine defers the check.

export abstract class LoadDeferred extends Error {
  /** seconds after which a new try may succeed */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Every browser page is in use. */
export class RendererBusy extends LoadDeferred {
  override readonly name = 'RendererBusy';
}

/** The browser could not be started, or the loader is closed. */
export class BrowserUnavailable extends LoadDeferred {
  override readonly name = 'BrowserUnavailable';
}
