import { randomBytes } from 'node:crypto';

/** Time as a dependency, so that expiry, schedules and retries are tested without sleeping. */
export interface Clock {
  /** milliseconds since the Unix epoch */
  now(): number;
  /**
   * Waits `ms` of this clock's time. Absent: real time (setTimeout). A simulated clock passes its own time
   * instead, so a seeded run that waits for a claim or backs off after a store fault replays exactly.
   */
  sleep?(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Waits `ms` on the clock. On real time a jitter of up to `jitterMs` is added, so processes that back off
 * together do not retry in step; a clock that passes its own time has no such processes to part.
 */
export function pause(clock: Clock, ms: number, jitterMs = 0): Promise<void> {
  if (clock.sleep) return clock.sleep(ms);
  return new Promise((resolve) => setTimeout(resolve, ms + (jitterMs > 0 ? Math.random() * jitterMs : 0)));
}

/** A clock that tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 10, 21, 10, 0, 0)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** Identifiers as a dependency: unique across processes (time prefix plus random), predictable in tests. */
export interface IdGenerator {
  transactionId(): string;
  token(): string;
  notifyId(): string;
  recurringId(): string;
  /** a random opaque identifier (sessions, payouts, requests) */
  opaque(prefix: string): string;
}

const ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const LETTERS = ALPHABET.slice(10);

/** Random bytes drawn from the system in blocks: one system call per 4 KB instead of one per identifier. */
let pool = Buffer.alloc(0);
let poolAt = 0;
function randomByte(): number {
  if (poolAt >= pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** `length` characters of `alphabet`, each equally likely (bytes past the last whole multiple are skipped). */
function randomText(length: number, alphabet = ALPHABET): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < limit) out += alphabet[b % alphabet.length];
  }
  return out;
}

export function randomIds(clock: Clock): IdGenerator {
  let stampSecond = -1;
  let stampText = '';
  /** YYYYMMDDhhmmss (UTC) of now, worked out once a second */
  const stamp = (): string => {
    const second = Math.floor(clock.now() / 1000);
    if (second !== stampSecond) {
      const d = new Date(second * 1000);
      const p = (n: number) => String(n).padStart(2, '0');
      stampText = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
      stampSecond = second;
    }
    return stampText;
  };
  return {
    transactionId: () => `${stamp()}${randomText(8)}`,
    token: () => `tok_${randomText(24)}`,
    notifyId: () => `ntf_${stamp()}${randomText(10)}`,
    // the date and time apart, and a letter after the time: no run of 12 digits, which free-text masking
    // would take for a card number in the charges' order_no `<recurring_id>-<n>` (docs/subscriptions.md)
    recurringId: () => {
      const s = stamp();
      return `RC${s.slice(0, 8)}T${s.slice(8)}${randomText(1, LETTERS)}${randomText(5)}`;
    },
    opaque: (prefix) => `${prefix}_${randomText(24)}`,
  };
}
