// Group calls to the store: the calls that arrive while a group is on its way
// wait and go together in the next, one statement for all of them. A call
// that finds nothing on its way is sent at once, so alone it waits for
// nothing; under load the store runs one statement for many callers instead
// of one each (docs/decisions/0031-api-hot-path-grouped-monitor-reads.md).

interface Waiting<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (err: unknown) => void;
}

/** Runs a group: one output per input, in the inputs' order. */
export type RunGroup<I, O> = (inputs: I[]) => Promise<O[]>;

export class GroupedCalls<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private sending = false;

  /**
   * @param runGroup sends one group to the store
   * @param maxGroup most calls in one group; more wait for the next
   */
  constructor(
    private readonly runGroup: RunGroup<I, O>,
    private readonly maxGroup: number,
  ) {}

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.sending) void this.sendWaiting();
    });
  }

  /** Sends what waits, a group at a time, until nothing does: one group on its way at a time. */
  private async sendWaiting(): Promise<void> {
    this.sending = true;
    try {
      while (this.waiting.length > 0) await this.send(this.waiting.splice(0, this.maxGroup));
    } finally {
      this.sending = false;
    }
  }

  private async send(group: Waiting<I, O>[]): Promise<void> {
    let outputs: O[];
    try {
      outputs = await this.runGroup(group.map((w) => w.input));
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      // One call's failure must not fail the others: they go again one by one, in order, and only the offender fails.
      for (const waiting of group) await this.send([waiting]);
      return;
    }
    group.forEach((waiting, i) => waiting.resolve(outputs[i]!));
  }
}
