/** Sends in flight to one notify host from one gateway process, at most. */
export const SENDS_PER_HOST = 4;

/** The lane of a notify_url: its host and port. A URL that does not parse has a lane of its own (its send fails at once). */
export function hostOf(notifyUrl: string): string {
  try {
    return new URL(notifyUrl).host;
  } catch {
    return '';
  }
}

/**
 * Places for sends, per notify host. A host that answers slowly (or whose DNS does) fills its places and its
 * other notifications wait for one; notifications to other hosts are never behind them.
 */
export class HostLanes {
  private readonly inFlight = new Map<string, number>();
  /** sends waiting for a place, per host, in the order they asked */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly perHost = SENDS_PER_HOST) {}

  /** Takes a place for a send to `host`: at once, or when one frees before `deadline` (real time); false if none did. */
  take(host: string, deadline: number): Promise<boolean> {
    const busy = this.inFlight.get(host) ?? 0;
    if (busy < this.perHost) {
      this.inFlight.set(host, busy + 1);
      return Promise.resolve(true);
    }
    const wait = deadline - Date.now();
    if (wait <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      let queue = this.waiting.get(host);
      if (!queue) this.waiting.set(host, (queue = []));
      const handOver = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const q = this.waiting.get(host) ?? [];
        q.splice(q.indexOf(handOver), 1);
        if (q.length === 0) this.waiting.delete(host);
        resolve(false);
      }, wait);
      queue.push(handOver);
    });
  }

  /** Gives a place back: to the first send waiting for this host, else free. */
  release(host: string): void {
    const queue = this.waiting.get(host);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(host);
    if (next) return next();
    const busy = (this.inFlight.get(host) ?? 1) - 1;
    if (busy > 0) this.inFlight.set(host, busy);
    else this.inFlight.delete(host);
  }
}
