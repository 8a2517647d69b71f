/**
 * Authorise latency through each card connector against its loopback stub (issue 38): `npx tsx
 * bench/acquirer-latency.ts [requests]` runs, for the sandbox, Stripe (its SDK to the Stripe stub) and Adyen
 * (its library to the Adyen stub), `requests` sequential /v1/authorise calls (200 by default, after 50 of
 * warm-up) through the app in process on the in-memory store, and prints the median and p99 of each. The
 * stubs answer at once: the figures are the gateway's and the SDK's own cost, not an acquirer's.
 */
import request from 'supertest';
import { authoriseBody, makeGateway } from '../test/support/gateway.js';
import { StripeStub } from '../test/support/acquirers/stripe-stub.js';
import { AdyenStub } from '../test/support/acquirers/adyen-stub.js';
import { ADYEN_ENV, STRIPE_ENV, acquirerMerchants } from '../test/support/acquirers/accounts.js';

const REQUESTS = Number(process.argv[2] ?? 200);
const WARM_UP = 50;

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function measure(code: 'sandbox' | 'stripe' | 'adyen', base?: string): Promise<string> {
  const gw = makeGateway({
    name: `acquirer-latency-${code}`,
    ...(code === 'sandbox' || !base ? {} : { merchants: acquirerMerchants(code, base) }),
    env: { ...STRIPE_ENV, ...ADYEN_ENV, LOG_LEVEL: 'warn' },
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < WARM_UP + REQUESTS; i++) {
      const body = JSON.stringify(authoriseBody({ items: undefined, item_total: undefined }));
      const started = process.hrtime.bigint();
      const res = await request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(body);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (res.status !== 200 || !res.text.includes('<order_status>1</order_status>')) throw new Error(`${code}: ${res.status} ${res.text}`);
      if (i >= WARM_UP) times.push(ms);
    }
  } finally {
    await gw.close();
  }
  times.sort((a, b) => a - b);
  return `${code.padEnd(8)} median ${quantile(times, 0.5).toFixed(2)} ms   p99 ${quantile(times, 0.99).toFixed(2)} ms   (${REQUESTS} sequential authorises)`;
}

const stripe = await new StripeStub().start();
const adyen = await new AdyenStub().start();
try {
  for (const line of [await measure('sandbox'), await measure('stripe', stripe.baseUrl), await measure('adyen', adyen.baseUrl)])
    console.log(line);
} finally {
  await Promise.all([stripe.stop(), adyen.stop()]);
}
