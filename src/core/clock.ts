import { randomBytes } from 'node:crypto';

/** Time as a dependency, so that expiry, schedules and retries are tested without sleeping. */
export interface Clock {
  /** milliseconds since the Unix epoch */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

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

function randomText(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

export function randomIds(clock: Clock): IdGenerator {
  const stamp = (): string => {
    const d = new Date(clock.now());
    const p = (n: number) => String(n).padStart(2, '0');
    return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  };
  return {
    transactionId: () => `${stamp()}${randomText(8)}`,
    token: () => `tok_${randomText(24)}`,
    notifyId: () => `ntf_${stamp()}${randomText(10)}`,
    recurringId: () => `RC${stamp()}${randomText(6)}`,
    opaque: (prefix) => `${prefix}_${randomText(24)}`,
  };
}
