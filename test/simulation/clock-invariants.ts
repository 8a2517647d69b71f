import type { World } from './world.js';
import { MERCHANT_ID } from '../support/gateway.js';
import { PaymentStatus as S, type Payment } from '../../src/core/records/payment.js';
import { clockOf } from '../../src/core/clocks/clock-deps.js';

/** The seeded runs' test clocks start here: far from the live clock, so a date tells whose time it is. */
export const CLOCK_START = Date.UTC(2031, 0, 1);

/**
 * Test clocks (docs/test-clocks.md), after quiescence:
 * 1. no clock is left advancing (an advance whose process died is resumed by another);
 * 2. a clock's payments live in its time: made at or after its start and never after its time; live payments in live time;
 * 3. each period of a clock's subscription is approved at most once (a charge and its retries together).
 */
export async function clockViolations(w: World): Promise<string[]> {
  const out: string[] = [];
  const clocks = new Map((await w.checkStore.testClocksOf(MERCHANT_ID, 100)).map((c) => [c.test_clock_id, c]));
  for (const c of clocks.values()) if (c.clock_status !== 'ready') out.push(`test clock ${c.test_clock_id}: left ${c.clock_status}`);
  const periods = new Map<string, number>();
  for (const p of (await w.checkStore.getPayments(MERCHANT_ID, [...new Set(w.transactions)])).filter(
    (x): x is Payment => x !== undefined,
  )) {
    const id = clockOf(p);
    const clock = id && clocks.get(id);
    if (id === undefined) {
      if (p.created_at >= CLOCK_START) out.push(`${p.transaction_id}: a live payment made in a test clock's time`);
      continue;
    }
    if (!clock) continue;
    if (p.created_at < CLOCK_START || p.updated_at > clock.frozen_time)
      out.push(
        `${p.transaction_id}: a payment of clock ${id} outside its time (${p.created_at}..${p.updated_at}, clock at ${clock.frozen_time})`,
      );
    const period = p.recurring_id && /^(.*-\d+)(?:-R\d+)?$/.exec(p.order_no)?.[1];
    if (period && (p.history ?? []).some((h) => h.to === S.AUTHORISED || h.to === S.CAPTURED))
      periods.set(period, (periods.get(period) ?? 0) + 1);
  }
  for (const [period, n] of periods) if (n > 1) out.push(`subscription period ${period} of a test clock approved ${n} times`);
  return out;
}
