import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { advancePayout } from '../../../src/core/payouts/lifecycle.js';
import { SandboxPayoutConnector } from '../../../src/connectors/sandbox/sandbox-payout.js';
import type { PayoutConnector } from '../../../src/core/ports/payout-connector.js';
import { makeGateway, MERCHANT_ID } from '../../support/gateway.js';
import { payoutBody, payoutMerchants } from '../../support/payout.js';

/** A provider that answers slowly and counts the transfers it was handed. */
class CountingProvider implements PayoutConnector {
  readonly code = 'counting';
  submitted = 0;
  private inner = new SandboxPayoutConnector();
  async submit(...args: Parameters<PayoutConnector['submit']>) {
    this.submitted++;
    await sleep(30);
    return this.inner.submit(...args);
  }
  status(ref: string) {
    return this.inner.status(ref);
  }
}

describe('payout submission with two gateway processes', () => {
  it('when two processes advance the same due payout at once, then the transfer is handed to the provider once', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const gw = makeGateway({ name: 'payout-submit-once', clock, merchants: payoutMerchants() });
    const provider = new CountingProvider();
    gw.deps.payoutConnector = provider;
    const res = await request(gw.app)
      .post('/v1/payout')
      .send(JSON.stringify(payoutBody({ payment_date: '2026-11-21' })));
    expect(res.status).toBe(200);
    clock.advance(2 * 60_000);
    const moved = await Promise.all([
      advancePayout(gw.deps, MERCHANT_ID, res.body.transaction_id),
      advancePayout(gw.deps, MERCHANT_ID, res.body.transaction_id),
    ]);
    expect(provider.submitted).toBe(1);
    expect(moved.filter(Boolean)).toHaveLength(1);
    expect((await gw.deps.store.getPayout(MERCHANT_ID, res.body.transaction_id))?.status).toBe('PROCESSING');
  });
});
