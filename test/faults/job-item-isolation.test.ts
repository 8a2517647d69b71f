import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { backgroundJobs } from '../../src/compose.js';
import { buildDirectory, merchantsFileSchema, type MerchantsFile } from '../../src/core/records/directory.js';
import type { BackgroundJob } from '../../src/core/schedule/due-queue.js';
import type { CoreDeps } from '../../src/core/ports/deps.js';
import { redisWorld } from '../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, testMerchants, type TestGateway } from '../support/gateway.js';
import { authorise } from '../support/jobs.js';

/**
 * Scenario 7 of issue 11: an account whose `routing.connector_code` names no connector (the start refuses
 * such a merchants file now, so here the directory changes under a running core, as a connector removed
 * from a deployment would) must not abort a whole job run: the expiry and the charges of the other
 * accounts and merchants go on, and the failing items stay queued for a later run.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const world = redisWorld('fault-job-isolation');

const OTHER_MERCHANT = '2000002';
const OTHER_ACCOUNT = '2000002001';
const OTHER_KEY = 'test-sign-key-2002';
/** a second manual-capture account of the first merchant, next to the one whose connector goes away */
const SISTER_ACCOUNT = '1000001003';
const SISTER_KEY = 'test-sign-key-0003';

function merchants(brokenConnector?: string): MerchantsFile {
  const file = testMerchants();
  const first = file.merchants[0]!;
  const broken = first.accounts.find((a) => a.account_id === ACCOUNT_ID)!;
  if (brokenConnector) broken.routing = { ...broken.routing, connector_code: brokenConnector };
  first.accounts.push({
    ...broken,
    account_id: SISTER_ACCOUNT,
    sign_key: SISTER_KEY,
    routing: { ...broken.routing, connector_code: 'sandbox' },
  });
  file.merchants.push({
    ...first,
    merchant_id: OTHER_MERCHANT,
    name: 'Other Shop',
    accounts: [{ ...broken, account_id: OTHER_ACCOUNT, sign_key: OTHER_KEY, routing: { ...broken.routing, connector_code: 'sandbox' } }],
  });
  return file;
}

const subscription = {
  contract: 'C-1',
  contract_name: 'Gold plan',
  contract_amount: '25.00',
  interval: 'day',
  interval_count: '1',
  billing_cycle: 3,
  promotion_cycle: 0,
  contract_start: '2026-11-21',
  contract_end: '',
  price_id: 'price_gold',
};

async function pay(gw: TestGateway, merchantId: string, accountId: string, key: string) {
  const answer = await authorise(gw, { merchant_id: merchantId, account_id: accountId, subscription }, key);
  expect(answer.order_status).toBe('1');
  return { transactionId: answer.transaction_id!, recurringId: answer.recurring_id! };
}

function job(deps: CoreDeps, gw: TestGateway, name: string): BackgroundJob {
  const found = backgroundJobs(deps, gw.config).find((j) => j.name === name);
  if (!found) throw new Error(`no background job ${name}`);
  return found;
}

describe('when one account of a merchant routes to a connector that is not registered', () => {
  it('then the expiry sweep and the subscription charges still run for the other accounts and merchants', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('fault-job-isolation', clock, { merchants: merchants() });
    // the broken account's payment first: it is the earliest member of its queues, under the first merchant
    const broken = await pay(gw, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY);
    const sister = await pay(gw, MERCHANT_ID, SISTER_ACCOUNT, SISTER_KEY);
    const other = await pay(gw, OTHER_MERCHANT, OTHER_ACCOUNT, OTHER_KEY);

    // the same store and clock, but the first account now names a connector nobody registered
    const deps: CoreDeps = { ...gw.deps, merchants: buildDirectory(merchantsFileSchema.parse(merchants('acme-bank'))) };
    const charges = job(deps, gw, 'subscription-charges');
    const expiry = job(deps, gw, 'auth-expiry');
    for (let t = 0; t < DAY + 2 * HOUR; t += HOUR) {
      clock.advance(HOUR);
      await charges.runOnce();
    }
    clock.advance(6 * DAY); // past the first payments' 7-day window, not the second charges'
    await expiry.runOnce();

    const store = gw.deps.store;
    // the other merchant and the sister account: charged for the second period, first payment expired
    for (const [m, a, p] of [
      [OTHER_MERCHANT, OTHER_ACCOUNT, other],
      [MERCHANT_ID, SISTER_ACCOUNT, sister],
    ] as const) {
      expect(await store.findPaymentByOrder(m, a, `${p.recurringId}-2`)).toMatchObject({ status: '3000', source: 'recurring' });
      expect((await store.getContract(m, p.recurringId))!.charges_made).toBe(2);
      expect((await store.getPayment(m, p.transactionId))!.status).toBe('4400');
    }
    // the broken account's items: untouched, counted, and still queued a short while ahead
    expect((await store.getPayment(MERCHANT_ID, broken.transactionId))!.status).toBe('3000');
    expect((await store.getContract(MERCHANT_ID, broken.recurringId))!.charges_made).toBe(1);
    expect(await store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${broken.recurringId}-2`)).toBeUndefined();
    expect(expiry.failedItems).toBe(1);
    expect(charges.failedItems).toBeGreaterThanOrEqual(1);
    const now = clock.now();
    const queued = await store.due(MERCHANT_ID, 'auth_expiry', now + DAY, 10);
    const entry = queued.find((q) => q.member === broken.transactionId);
    expect(entry?.at).toBeGreaterThan(now);
    expect(await store.due(MERCHANT_ID, 'auth_expiry', now, 10)).toEqual([]);
  });
});
