/**
 * Work the gateway does on its own (expiry sweep, notification delivery, subscription charges, payout
 * progress). Each job's `runOnce` does whatever is due at the injected clock's now and returns how many
 * items it handled, so tests call it directly instead of sleeping. Several processes may run the same job
 * at once: every item is claimed with a versioned (compare-and-set) write, so only one process acts on it.
 */
export interface BackgroundJob {
  readonly name: string;
  /** pause between runs, real time */
  readonly intervalMs: number;
  runOnce(): Promise<number>;
}
