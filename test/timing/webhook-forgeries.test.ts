import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import Stripe from 'stripe';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { makeGateway, testMerchants, type TestGateway } from '../support/gateway.js';
import { StripeStub } from '../support/acquirers/stripe-stub.js';
import type { MerchantsFile } from '../../src/core/records/directory.js';

/**
 * Each acquirer webhook address is one account's and checks that account's secret only (docs/security.md,
 * acquirer webhooks): a forged post costs one signature check however many accounts the gateway serves, and the
 * shared address of a gateway with several refuses before reading the body.
 */
const stripe = new StripeStub();
beforeAll(() => stripe.start());
afterAll(() => stripe.stop());

const signStripe = (payload: string, secret: string) => Stripe.webhooks.generateTestHeaderString({ payload, secret });

function gateway(merchants: MerchantsFile, env: Record<string, string>): TestGateway {
  return makeGateway({ name: 'webhook-forgeries', clock: new ManualClock(), merchants, env });
}

describe('501 Stripe accounts under forged webhooks', () => {
  /** The test merchant with 501 Stripe accounts, each with a webhook secret of its own. */
  function manyAccounts(): { merchants: MerchantsFile; env: Record<string, string> } {
    const file = testMerchants();
    const base = file.merchants[0]!.accounts[0]!;
    const env: Record<string, string> = {};
    file.merchants[0]!.accounts = Array.from({ length: 501 }, (_, i) => {
      env[`STRIPE_KEY_${i}`] = 'sk_test_stub';
      env[`STRIPE_WHSEC_${i}`] = `whsec_account_${i}`;
      return {
        ...base,
        account_id: String(2000000000 + i),
        routing: {
          connector_code: 'stripe',
          secret_key_env: `STRIPE_KEY_${i}`,
          webhook_secret_env: `STRIPE_WHSEC_${i}`,
          api_base: stripe.baseUrl,
        },
      } as never;
    });
    return { merchants: file, env };
  }

  it('when five 520 KB posts with a wrong Stripe-Signature arrive at once, at the shared and at accounts’ addresses, then each is refused 4xx within 200 ms', async () => {
    const { merchants, env } = manyAccounts();
    const gw = gateway(merchants, env);
    // a real listening server, so the posts are concurrent as a stranger's would be
    const server: Server = createServer(gw.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const payload = JSON.stringify({
        id: 'evt_forged',
        type: 'payment_intent.succeeded',
        data: { object: { pad: 'x'.repeat(520_000) } },
      });
      const file = join(tmpdir(), `forged-${process.pid}.json`);
      writeFileSync(file, payload);
      const forged = signStripe(payload, 'whsec_not_any_account');
      // each post from a process of its own (curl), as a stranger's would come: its time is the server's answer
      const post = (path: string) =>
        new Promise<{ status: number; seconds: number }>((resolve, reject) =>
          execFile(
            'curl',
            [
              '-s',
              '-o',
              '/dev/null',
              '-w',
              '%{http_code} %{time_total}',
              '-H',
              'Content-Type: application/json',
              '-H',
              `Stripe-Signature: ${forged}`,
              '--data-binary',
              `@${file}`,
              `${base}${path}`,
            ],
            (err, out) => (err ? reject(err) : resolve({ status: Number(out.split(' ')[0]), seconds: Number(out.split(' ')[1]) })),
          ),
        );
      // warm: the first request of a process pays for its compiled paths
      await post('/connectors/stripe/webhook/2000000000');
      for (const paths of [
        Array.from({ length: 5 }, () => '/connectors/stripe/webhook'),
        Array.from({ length: 5 }, (_, i) => `/connectors/stripe/webhook/${2000000000 + i * 100}`),
      ]) {
        const answers = await Promise.all(paths.map(post));
        console.log(answers.map((a) => `${a.status}:${(a.seconds * 1000).toFixed(0)}ms`).join(' '));
        for (const a of answers) {
          expect(a.status).toBe(400);
          expect(a.seconds).toBeLessThan(0.2);
        }
      }
      // the shared address says why without trying any secret; an account's address checks its own
      const shared = await request(gw.app).post('/connectors/stripe/webhook').set('Stripe-Signature', forged).send(payload);
      expect(shared.body.field).toBe('account_id');
      const own = await request(gw.app).post('/connectors/stripe/webhook/2000000000').set('Stripe-Signature', forged).send(payload);
      expect(own.body.field).toBe('signature');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gw.close();
    }
  }, 60_000);
});
