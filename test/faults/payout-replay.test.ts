import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { spawnGateway } from '../support/process.js';
import { VAULT_KEY_HEX } from '../support/gateway.js';
import { payoutBody, payoutMerchants } from '../support/payout.js';

/**
 * Copies of one payout request sent at once to two gateway processes on one real Redis (docs/payouts.md,
 * Idempotency): whichever copy commits first, every copy answers the same. A copy that read "no payout
 * yet" just before another copy's commit, then the balance just after it, used to be refused 422
 * INSUFFICIENT_BALANCE although its payout had been made (issue 37, point 3).
 */
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CNY', 'HKD', 'SGD', 'AUD', 'CAD', 'CHF'];
/** LOCAL, fees borne by the beneficiary: the deposit account pays exactly the 1000.00 principal */
const AMOUNT = '1000.00';
/** each balance covers one payout of 1000.00, not two: near exhausted once the first copy commits */
const OPENING = 150_000;
const ROUNDS = 6;

let redis: RedisServer;
const children: ChildProcess[] = [];
const bases: string[] = [];

async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  redis = await startRedis('payout-replay');
  const dir = join(tmpdir(), `gw-payout-replay-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const merchants = join(dir, 'merchants.json');
  writeFileSync(merchants, JSON.stringify(payoutMerchants(Object.fromEntries(CURRENCIES.map((c) => [c, OPENING])))));
  for (const name of ['payout-replay-a', 'payout-replay-b']) {
    const port = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      VAULT_KEY: VAULT_KEY_HEX,
      MERCHANTS_FILE: merchants,
      LOG_LEVEL: 'warn',
    };
    const { child, output } = spawnGateway(env, name, 4000);
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const start = Date.now();
    while (!(await healthy(base))) {
      if (Date.now() - start > 30_000 || child.exitCode !== null) throw new Error(`gateway did not start: ${output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    bases.push(base);
  }
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await redis?.stop();
});

/** A payout of 1000.00 from (and to) one currency, due tomorrow (never "in the past" near midnight). */
function payoutIn(currency: string, requestId: string): Record<string, unknown> {
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return payoutBody({
    request_id: requestId,
    payment_amount: AMOUNT,
    payment_currency: currency,
    source_currency: currency,
    payment_method: 'LOCAL',
    fee_paid_by: 'BENEFICIARY',
    swift_charge_option: '',
    payment_date: tomorrow,
    notify_url: '',
    'beneficiary.bank_details.account_currency': currency,
  });
}

describe('when ten payout request ids are each sent three times at once to two gateway processes (real Redis)', () => {
  it('then every copy of one request_id answers the same: one payout, never 200 for one copy and 422 for another', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // a fresh deposit account each round: the opening balances stand again
      await redis.client().flushall();
      const ids = CURRENCIES.map(() => randomUUID());
      const copies = ids.flatMap((id, i) => [0, 1, 2].map((copy) => ({ id, currency: CURRENCIES[i]!, base: bases[(i + copy) % 2]! })));
      const answers = await Promise.all(
        copies.map(async ({ id, currency, base }) => {
          const res = await fetch(`${base}/v1/payout`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(payoutIn(currency, id)),
          });
          const body = (await res.json()) as { code?: string; transaction_id?: string };
          return { id, answer: `${res.status} ${body.code ?? body.transaction_id}` };
        }),
      );
      for (const id of ids) {
        const seen = new Set(answers.filter((a) => a.id === id).map((a) => a.answer));
        expect({ round, id, answers: [...seen] }).toEqual({ round, id, answers: [expect.stringMatching(/^200 /)] });
      }
    }
  });
});
