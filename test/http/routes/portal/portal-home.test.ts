import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/kernel/clock.js';
import { compactDate } from '../../../../src/core/kernel/dates.js';
import { parseAmount } from '../../../../src/core/kernel/money.js';
import { formatAmount as formatMoney } from '../../../../src/i18n/index.js';
import { redisWorld } from '../../../support/redis-world.js';
import { authoriseBody, type TestGateway } from '../../../support/gateway.js';
import { jobOf } from '../../../support/jobs.js';
import { pay, postBatch, postQuery, ref } from '../../../support/operations.js';
import { CARDS, CHALLENGE_CODE } from '../../../support/cards.js';
import { disputeCall } from '../../../support/disputes.js';
import { portalMerchants, PORTAL, signedIn } from '../../../support/portal.js';

const world = redisWorld('portal-home');
const DAY = 86_400_000;
/** the statuses the home counts as approved and as refused (docs/portal.md#home) */
const APPROVED = ['3000', '3100', '3200', '3300'];
const REFUSED = ['4000', '4200', '4300'];

async function homeGateway(name: string): Promise<{ gw: TestGateway; clock: ManualClock }> {
  const clock = new ManualClock(Date.UTC(2026, 10, 18, 9, 0, 0));
  const merchants = await portalMerchants();
  const account = merchants.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>;
  account.deposit_balance = { USD: 10_000_000, JPY: 10_000_000 };
  return { gw: world.gateway(name, clock, { merchants }), clock };
}

type Figures = Record<string, string>;
type Line = {
  currency: string;
  payment_status: string;
  amount: string;
  refund_status: string;
  refund_amount: string;
  dispute_amount: string;
};

/** Each chart's table on the home, by currency, chart and day (YYYY-MM-DD): its cells. */
function homeTables(html: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const section of html.split('<section class="home-currency"').slice(1)) {
    const currency = /id="cur-([A-Z]{3})"/.exec(section)![1]!;
    for (const figure of section.split('<figure class="chart">').slice(1)) {
      const chart = /id="c\d+-(\w+)-title"/.exec(figure)![1]!;
      for (const row of figure.matchAll(/<tr><th scope="row"><bdi dir="ltr">([\d-]+)<\/bdi><\/th>(.*?)<\/tr>/g)) {
        out.set(
          `${currency} ${chart} ${row[1]}`,
          [...row[2]!.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]!),
        );
      }
    }
  }
  return out;
}

/** What the API's own queries report for one day (YYYYMMDD) and currency, as the home words it. */
async function apiDay(gw: TestGateway, day: string, currency: string): Promise<Figures> {
  const range = { start_date: `${day}000000`, end_date: `${day}235959` };
  const trans = await postQuery(gw.app, '/v1/retrievalTrans', range);
  expect(trans.body.has_more).toBe('0');
  const lines = (trans.body.orders_list as Line[]).filter((l) => l.currency === currency);
  const approved = lines.filter((l) => APPROVED.includes(l.payment_status));
  const refused = lines.filter((l) => REFUSED.includes(l.payment_status));
  const refunds = await postQuery(gw.app, '/v1/retrievalRefund', range);
  const accepted = (refunds.body.refund_orders as Line[]).filter((r) => r.currency === currency && r.refund_status === '1');
  const disputes = await disputeCall(gw.app, 'retrievalDispute', range);
  const opened = (disputes.body.dispute_orders as Line[]).filter((d) => d.currency === currency);
  const sum = (texts: string[]) => texts.reduce((a, t) => a + parseAmount(t)!, 0);
  const money = (minor: number) => formatMoney('en', minor, currency);
  const answered = approved.length + refused.length;
  return {
    volume: money(sum(approved.map((l) => l.amount))),
    payments: String(lines.length),
    answered: String(answered),
    approved: String(approved.length),
    rate: answered ? `${Math.round((approved.length / answered) * 1000) / 10}%` : 'no answers',
    refunds: String(accepted.length),
    refunded: money(sum(accepted.map((r) => r.refund_amount))),
    disputes: String(opened.length),
    disputed: money(sum(opened.map((d) => d.dispute_amount))),
  };
}

/** The home's figures of one day and currency, read from its tables. */
function homeDay(tables: Map<string, string[]>, day: string, currency: string): Figures {
  const at = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;
  const cells = (chart: string) => tables.get(`${currency} ${chart} ${at}`) ?? [];
  return {
    volume: cells('volume')[0]!,
    payments: cells('payments')[0]!,
    answered: cells('payments')[1]!,
    approved: cells('rate')[1]!,
    rate: cells('rate')[0]!,
    refunds: cells('refunds')[0]!,
    refunded: cells('refunds')[1]!,
    disputes: cells('disputes')[0]!,
    disputed: cells('disputes')[1]!,
  };
}

/** A 3-D Secure payment left waiting for the shopper's code; answers its issuer_url path. */
async function challenged(gw: TestGateway, amount: string): Promise<string> {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(JSON.stringify(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS', amount, items: undefined, item_total: undefined })));
  const issuer = /<issuer_url>([^<]+)<\/issuer_url>/.exec(res.text)![1]!;
  return new URL(issuer).pathname;
}

describe('the portal home', () => {
  it('when payments, 3-D Secure, refunds and disputes happen over days, then each day of the home matches the /v1 queries', async () => {
    const { gw, clock } = await homeGateway('portal-home-days');
    const steps = jobOf(gw, 'dispute-steps');
    // day 1: approved and captured, declined, a JPY payment, and a challenge left waiting into day 2
    const first = await pay(gw.app, { amount: '10.00' });
    await postBatch(gw.app, 'capture', [ref(first)]);
    await pay(gw.app, { card: CARDS.declined, amount: '7.00' });
    await pay(gw.app, { currency: 'JPY', amount: '1500' });
    await pay(gw.app, { currency: 'JPY', amount: '700', card: CARDS.insufficientFunds });
    const waiting = await challenged(gw, '30.00');
    const leftWaiting = await challenged(gw, '12.00');
    // day 2: the challenge answered (counted on the day it was made), a refund of day 1's payment, a dispute
    clock.advance(DAY);
    expect((await request(gw.app).post(waiting).type('form').send({ code: CHALLENGE_CODE })).status).toBeLessThan(400);
    expect(
      (await postBatch(gw.app, 'refund', [ref(first, { refund_amount: '4.00', refund_reason: 'returned' })])).body.refund_orders[0]
        .refund_status,
    ).toBe('1');
    const disputed = await pay(gw.app, { card: CARDS.disputeFraud, amount: '25.50' });
    await postBatch(gw.app, 'capture', [ref(disputed)]);
    await steps.runOnce();
    // day 4 (day 3 is empty): a partial capture, a second refund of day 1's payment, a cancelled authorisation
    clock.advance(2 * DAY);
    const partial = await pay(gw.app, { amount: '40.00' });
    await postBatch(gw.app, 'capture', [ref(partial, { amount: '15.00' })]);
    await postBatch(gw.app, 'refund', [ref(first, { refund_amount: '1.00', refund_reason: 'goodwill' })]);
    const cancelled = await pay(gw.app, { amount: '9.00' });
    await postBatch(gw.app, 'cancel', [ref(cancelled)]);
    await steps.runOnce();

    const admin = await signedIn(gw.app, PORTAL.admin);
    const page = await admin.get('/portal?days=7');
    expect(page.status).toBe(200);
    const tables = homeTables(page.text);
    const days = Array.from({ length: 7 }, (_, i) => compactDate(clock.now() - (6 - i) * DAY, 'UTC').slice(0, 8));
    let compared = 0;
    for (const day of days)
      for (const currency of ['USD', 'JPY']) {
        expect(homeDay(tables, day, currency), `${currency} ${day}`).toEqual(await apiDay(gw, day, currency));
        compared++;
      }
    expect(compared).toBe(14);
    // not vacuous: day 1 in USD holds the captured, declined and both challenged payments, one of them approved since
    expect(homeDay(tables, '20261118', 'USD')).toMatchObject({ payments: '4', answered: '3', approved: '2', volume: '$40.00' });
    expect(homeDay(tables, '20261119', 'USD')).toMatchObject({ refunds: '1', refunded: '$4.00', disputes: '1', disputed: '$25.50' });
    expect(homeDay(tables, '20261120', 'USD')).toMatchObject({ payments: '0', volume: '$0.00', rate: 'no answers' });
    expect(homeDay(tables, '20261118', 'JPY')).toMatchObject({ volume: '¥1,500', rate: '50%' });
    expect(leftWaiting).toMatch(/^\/v1\/3ds\//);
  });

  it('when the days asked are not 7, 30 or 90, then the page answers 400 naming the field', async () => {
    const { gw } = await homeGateway('portal-home-range');
    const admin = await signedIn(gw.app, PORTAL.admin);
    const res = await admin.get('/portal?days=12');
    expect(res.status).toBe(400);
    expect(res.text).toContain('Period: must be one of 7, 30, 90 days');
    expect((await admin.get('/portal')).text).toContain('Last 30 days</option>');
  });
});
