import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { compactDate } from '../kernel/dates.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import type { TestClock } from '../records/clock-record.js';
import { clockDeps, type ClockDeps } from './clock-deps.js';

export type { TestClock };

/** Test clocks an account may hold at once (each is listed and read by the clocks' job). */
export const MAX_CLOCKS = 100;

/** Test clocks run on the sandbox only: a real acquirer's money moves in real time (docs/test-clocks.md). */
export function assertSandbox(account: Account, field = 'test_clock_id'): void {
  if (account.routing.connector_code !== 'sandbox') {
    throw invalidField(
      field,
      `test clocks are for sandbox accounts only; this account is routed to ${account.routing.connector_code}, whose payments move in real time`,
    );
  }
}

export interface NewClock {
  request_id: string;
  frozen_time: number;
  name: string;
  notify_url: string;
}

/** Creates a test clock, idempotent on (account, request_id): the same request_id again answers the clock it made. */
export async function createClock(deps: CoreDeps, account: Account, input: NewClock): Promise<TestClock> {
  assertSandbox(account, 'account_id');
  const m = account.merchant_id;
  const clocks = await deps.store.testClocksOf(m, MAX_CLOCKS * 10);
  const same = clocks.find((c) => c.account_id === account.account_id && c.request_id === input.request_id);
  if (same) return same;
  if (clocks.filter((c) => c.account_id === account.account_id).length >= MAX_CLOCKS) {
    throw invalidField('request_id', `an account holds at most ${MAX_CLOCKS} test clocks; delete one first (/v1/testClockDelete)`);
  }
  const clock: TestClock = {
    version: 0,
    test_clock_id: deps.ids.opaque('clock'),
    merchant_id: m,
    account_id: account.account_id,
    request_id: input.request_id,
    name: input.name,
    notify_url: input.notify_url,
    frozen_time: input.frozen_time,
    clock_status: 'ready',
    created_at: deps.clock.now(),
  };
  if (!(await deps.store.commit({ merchantId: m, testClocks: [{ next: clock, expected: 0 }] }))) {
    throw new GatewayError('STORE_UNAVAILABLE', 'could not record the test clock; try again');
  }
  return { ...clock, version: 1 };
}

/** The account's clock by id, or a 400 naming `field` (an unknown id and another account's are one answer). */
export async function findClock(deps: CoreDeps, account: Account, id: string, field = 'test_clock_id'): Promise<TestClock> {
  const clock = await deps.store.getTestClock(account.merchant_id, id);
  if (!clock || clock.account_id !== account.account_id) throw invalidField(field, 'names no test clock of this account');
  return clock;
}

/**
 * The core in the time of the clock a payment or payout request names (`test_clock_id` on /v1/authorise,
 * /v1/checkout or /v1/payout): the request path runs unchanged on it, so the payment (or payout) and all it
 * makes live in the clock's time and queues.
 */
export async function paymentDepsOnClock(deps: CoreDeps, account: Account, id: string): Promise<ClockDeps> {
  assertSandbox(account);
  return clockDeps(deps, await findClock(deps, account, id));
}

/** The account's clocks (or the one named), oldest first. */
export async function listClocks(deps: CoreDeps, account: Account, id?: string): Promise<TestClock[]> {
  if (id) return [await findClock(deps, account, id)];
  const clocks = await deps.store.testClocksOf(account.merchant_id, MAX_CLOCKS * 10);
  return clocks.filter((c) => c.account_id === account.account_id);
}

/** Deletes a clock with every object attached to it; an advance under way is stopped by it (its reads find nothing). */
export async function deleteClock(deps: CoreDeps, account: Account, id: string): Promise<TestClock> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const clock = await findClock(deps, account, id);
    if (await deps.store.deleteTestClock(account.merchant_id, clock)) return clock;
  }
  throw new GatewayError('STORE_UNAVAILABLE', 'the test clock kept moving while it was deleted; try again');
}

/** A clock as the calls answer it (docs/test-clocks.md). */
export function clockFields(clock: TestClock, timezone: string): Record<string, string> {
  return {
    test_clock_id: clock.test_clock_id,
    name: clock.name,
    frozen_time: compactDate(clock.frozen_time, timezone),
    clock_status: clock.clock_status,
  };
}

/** The JSON answer of the clock calls: processed, signed over merchant_id, account_id, return_status. */
export function clockAnswer(account: Account, timezone: string, clocks: TestClock[], one: boolean): Record<string, unknown> {
  const head = { merchant_id: account.merchant_id, account_id: account.account_id, return_status: '1', return_message: 'OK' };
  const signed = { ...head, encryption_data: signFields(head, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key) };
  if (one) return { ...signed, ...clockFields(clocks[0]!, timezone) };
  return { ...signed, test_clocks: clocks.map((c) => clockFields(c, timezone)) };
}
