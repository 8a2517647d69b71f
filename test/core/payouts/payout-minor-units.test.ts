import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { backgroundJobs } from '../../../src/compose.js';
import type { PayoutSubmission } from '../../../src/core/ports/payout-connector.js';
import { redisWorld } from '../../support/redis-world.js';
import { payoutBody, payoutMerchants } from '../../support/payout.js';

/**
 * docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery: connectors take amounts in the currency's own minor units (ISO 4217 exponent), the payout
 * provider as the card acquirer (issue 37, point 5). It used to get hundredths for every currency: a JPY
 * 1,000 transfer went out as 100,000.
 */
const world = redisWorld('payout-minor-units');

function ratesWithKwd(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-fx-')), 'rates.json');
  writeFileSync(file, JSON.stringify({ base: 'USD', rates: { USD: '1', JPY: '151.50', KWD: '0.307' } }));
  return file;
}

describe('when payouts in JPY, USD and KWD are submitted to the provider', () => {
  it("then the provider gets each amount in the currency's own minor units: 0, 2 and 3 decimals", async () => {
    const clock = new ManualClock();
    const gw = world.gateway('payout-minor-units', clock, {
      merchants: payoutMerchants({ JPY: 100_000_000, USD: 10_000_000, KWD: 10_000_000 }),
      env: { FX_RATES_FILE: ratesWithKwd() },
    });
    const submitted: PayoutSubmission[] = [];
    const provider = gw.deps.payoutConnector;
    gw.deps.payoutConnector = {
      code: provider.code,
      submit: (req) => {
        submitted.push(req);
        return provider.submit(req);
      },
      status: (ref) => provider.status(ref),
    };
    // LOCAL, every fee borne by the payer: the beneficiary receives exactly payment_amount
    const cases = [
      { currency: 'JPY', amount: '1000.00', expected: 1000 },
      { currency: 'USD', amount: '10.00', expected: 1000 },
      { currency: 'KWD', amount: '1.50', expected: 1500 },
    ];
    for (const c of cases) {
      const body = payoutBody({
        payment_amount: c.amount,
        payment_currency: c.currency,
        source_currency: c.currency,
        payment_method: 'LOCAL',
        fee_paid_by: 'PAYER',
        swift_charge_option: '',
        notify_url: '',
        'beneficiary.bank_details.account_currency': c.currency,
      });
      const res = await request(gw.app).post('/v1/payout').send(JSON.stringify(body));
      expect(res.status).toBe(200);
      expect(res.body.amount_beneficiary_receives).toBe(Number(c.amount));
    }
    clock.advance(60_000);
    const lifecycle = backgroundJobs(gw.deps, gw.config).find((j) => j.name === 'payout-lifecycle')!;
    expect(await lifecycle.runOnce()).toBe(3);
    expect(submitted.map((s) => ({ currency: s.currency, amount: s.amount })).sort((a, b) => a.currency.localeCompare(b.currency))).toEqual(
      cases.map((c) => ({ currency: c.currency, amount: c.expected })).sort((a, b) => a.currency.localeCompare(b.currency)),
    );
  });
});
