import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { acquirerAmount, currencyExponent } from '../../src/core/kernel/money.js';
import { redisWorld } from '../support/redis-world.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { instrumented } from '../support/faults.js';
import { testMerchants } from '../support/gateway.js';

const world = redisWorld('faults-minor-units');

function merchantsWith(currencies: string[]) {
  const file = testMerchants() as unknown as { merchants: { accounts: { currencies: string[] }[] }[] };
  file.merchants[0]!.accounts[0]!.currencies = currencies;
  return file as unknown as ReturnType<typeof testMerchants>;
}

describe("scenario 8: the connector receives the currency's own minor units (ISO 4217)", () => {
  it('when JPY, USD and KWD are authorised, captured and refunded, then the connector gets 0, 2 and 3 decimals of minor unit', async () => {
    const clock = new ManualClock();
    const connector = instrumented();
    const gw = world.gateway('fault-minor-units', clock, {
      wrapConnector: connector.wrap,
      merchants: merchantsWith(['JPY', 'USD', 'KWD']),
    });
    const cases = [
      { currency: 'JPY', amount: '1000.00', expected: 1000 },
      { currency: 'USD', amount: '10.00', expected: 1000 },
      { currency: 'KWD', amount: '1.50', expected: 1500 },
    ];
    for (const c of cases) {
      const p = await pay(gw.app, { currency: c.currency, amount: c.amount });
      expect(p.order_status).toBe('1');
      expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
      const refund = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: c.amount, refund_reason: 'return' })]);
      expect(refund.body.refund_orders[0].refund_status).toBe('1');
    }
    expect(connector.calls.amounts).toEqual(
      cases.flatMap((c) => ['authorise', 'capture', 'refund'].map((op) => ({ op, amount: c.expected, currency: c.currency }))),
    );
  });

  it('when amounts are converted, then the exponent table is ISO 4217', () => {
    expect([currencyExponent('JPY'), currencyExponent('USD'), currencyExponent('KWD'), currencyExponent('CLF')]).toEqual([0, 2, 3, 4]);
    expect(acquirerAmount(123_400, 'KRW')).toBe(1234);
    expect(acquirerAmount(1, 'BHD')).toBe(10);
    expect(() => acquirerAmount(123_456, 'JPY')).toThrow();
  });
});
