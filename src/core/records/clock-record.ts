// A test clock's record (docs/test-clocks.md): a leaf file (imports nothing of the core), so that ports/store.ts can name it.

export type ClockStatus = 'ready' | 'advancing';

/**
 * A test clock: the one time source of every object attached to it. `frozen_time` is the clock's now; while it
 * advances, `advance_to` is where it goes and `frozen_time` moves step by step (what is done is done: a process
 * that dies mid-advance leaves a clock whose steps up to `frozen_time` are made, and the rest is resumed).
 */
export interface TestClock {
  version: number;
  test_clock_id: string;
  merchant_id: string;
  account_id: string;
  request_id: string;
  name: string;
  /** where the clock's `test_clock` notification goes (optional at creation: none without it) */
  notify_url: string;
  /** the clock's now, epoch ms */
  frozen_time: number;
  clock_status: ClockStatus;
  /** while advancing: the time the advance ends at */
  advance_to?: number;
  /** while advancing: the process running it holds it until then (real time); after, any process resumes it */
  lease_until?: number;
  /** real time of creation */
  created_at: number;
}

/** A payment or dispute written in a clock's time carries its clock: calls on it later run in that time too. */
export interface ClockMark {
  test_clock_id?: string;
}

/** Queues of due work whose members are a clock's objects: the same queues as the live ones, per clock. */
export const CLOCK_QUEUES = [
  'contract_charge',
  'auth_expiry',
  'threeds_challenge',
  'pending_resolve',
  'outbox',
  'dispute',
  'payout',
] as const;
export type ClockQueue = (typeof CLOCK_QUEUES)[number];
