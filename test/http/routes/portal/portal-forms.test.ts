import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../support/redis-world.js';
import { MERCHANT_ID } from '../../../support/gateway.js';
import { pay, postBatch, postQuery, ref } from '../../../support/operations.js';
import { authorise } from '../../../support/jobs.js';
import { portalMerchants, PORTAL, signedIn, tokenOfForm } from '../../../support/portal.js';

const world = redisWorld('portal-forms');

/** `duplicateRefundSeconds` 0: the account turned the API's identical-refund window off (docs/api.md#errors-and-idempotency), so only the form's token stops a repeat. */
async function gateway(duplicateRefundSeconds?: number) {
  const clock = new ManualClock();
  const merchants = await portalMerchants();
  if (duplicateRefundSeconds !== undefined) merchants.merchants[0]!.accounts[0]!.refund_duplicate_seconds = duplicateRefundSeconds;
  const gw = world.gateway('portal-forms', clock, { merchants });
  return { gw, clock };
}

const SUBSCRIPTION = {
  contract: 'C-1',
  contract_name: 'Gold plan',
  contract_amount: '25.00',
  interval: 'month',
  interval_count: '1',
  billing_cycle: 3,
  promotion_cycle: 1,
  contract_start: '2026-11-21',
  contract_end: '',
  price_id: 'price_gold',
};

describe('when a portal form is sent more than once', () => {
  it('then a refund sent at once six times (a double click) and again 11 minutes later refunds once, and every answer shows its result', async () => {
    const { gw, clock } = await gateway(0);
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const admin = await signedIn(gw.app, PORTAL.admin);
    const page = `/portal/payments/${p.transaction_id}`;
    const token = tokenOfForm((await admin.get(page)).text, `${page}/refund`);
    const send = () =>
      admin.post(`${page}/refund`).type('form').send({ _csrf: token, refund_amount: '3.00', refund_reason: 'double click' });
    const atOnce = await Promise.all(Array.from({ length: 6 }, send));
    clock.advance(11 * 60_000);
    const later = await send(); // the browser's back button and the same form sent again, after the API's 10-minute window
    const stored = (await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!;
    expect(stored.refunds.map((r) => r.refund_amount)).toEqual([300]);
    expect(stored.refunded).toBe(300);
    for (const answer of [...atOnce, later]) {
      expect(answer.status).toBe(303);
      expect(answer.headers.location).toBe(page);
    }
    const shown = (await admin.get(page)).text;
    expect(shown).toContain('Refunded $3.00.');
    expect(shown).toContain('This form had already been sent: it acted once.');
    expect(shown).toMatch(/id="amount-refunded">\$3\.00</);
    const api = await postQuery(gw.app, '/v1/retrievalRefund', { transaction_id: p.transaction_id });
    expect(api.body.refund_orders).toMatchObject([{ refund_amount: '3.00', refund_reason: 'double click' }]);
    expect((await gw.deps.store.auditOf(MERCHANT_ID, p.transaction_id, 10)).map((a) => a.action)).toEqual(['refund']);
    // a fresh page has a fresh form: a second refund is a second, deliberate act
    const again = tokenOfForm((await admin.get(page)).text, `${page}/refund`);
    await admin.post(`${page}/refund`).type('form').send({ _csrf: again, refund_amount: '3.00' });
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!.refunded).toBe(600);
  });

  it('then a subscription cancel sent twice answers the first result both times, not a refusal', async () => {
    const { gw } = await gateway();
    const answer = await authorise(gw, { notify_url: 'http://127.0.0.1:9/notify', subscription: SUBSCRIPTION });
    const rid = answer.recurring_id!;
    const page = `/portal/subscriptions?recurring_id=${rid}`;
    const admin = await signedIn(gw.app, PORTAL.admin);
    const action = `/portal/subscriptions/${rid}/cancel`;
    const token = tokenOfForm((await admin.get(page)).text, action);
    const first = await admin.post(action).type('form').send({ _csrf: token });
    const second = await admin.post(action).type('form').send({ _csrf: token });
    expect(second.status).toBe(303);
    const shown = (await admin.get(second.headers.location!)).text;
    expect(shown).not.toContain('Refused');
    expect(shown).toContain('Done: subscription Inactived');
    expect(second.headers.location).toBe(first.headers.location);
    expect(await gw.deps.store.auditOf(MERCHANT_ID, rid, 5)).toHaveLength(1);
  });

  it('then a token of another session, or made up, is refused (403) and nothing is done', async () => {
    const { gw } = await gateway();
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const page = `/portal/payments/${p.transaction_id}`;
    const admin = await signedIn(gw.app, PORTAL.admin);
    const other = await signedIn(gw.app, PORTAL.admin);
    const foreign = tokenOfForm((await other.get(page)).text, `${page}/refund`);
    const own = tokenOfForm((await admin.get(page)).text, `${page}/refund`);
    const [issued, nonce] = own.split('.');
    for (const token of [foreign, `${issued}.${nonce}.${'A'.repeat(43)}`, 'x']) {
      const res = await admin.post(`${page}/refund`).type('form').send({ _csrf: token, refund_amount: '1.00' });
      expect(res.status).toBe(403);
    }
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!.refunded).toBe(0);
  });
});

describe('when a notice is asked for in the address', () => {
  it('then the pages show only the server’s own notices, never text or flags from the query string', async () => {
    const { gw } = await gateway();
    const answer = await authorise(gw, { subscription: SUBSCRIPTION });
    const p = await pay(gw.app);
    const admin = await signedIn(gw.app, PORTAL.admin);
    const spoofed = new URLSearchParams({ recurring_id: answer.recurring_id!, ok: '1', result: 'Refund of 5000.00 accepted' });
    const subs = (await admin.get(`/portal/subscriptions?${spoofed}`)).text;
    expect(subs).toContain('Gold plan');
    expect(subs).not.toContain('Refund of 5000.00 accepted');
    expect((await admin.get('/portal/account/password?changed=1')).text).not.toContain('Your password has been changed.');

    // a real action's notice shows once, on the page it went back to; its audit id in the address brings nothing back
    const page = `/portal/payments/${p.transaction_id}`;
    const done = await admin
      .post(`${page}/capture`)
      .type('form')
      .send({ _csrf: tokenOfForm((await admin.get(page)).text, `${page}/capture`), amount: '4.00' });
    expect((await admin.get(done.headers.location!)).text).toContain('Captured $4.00.');
    expect((await admin.get(page)).text).not.toContain('Captured $4.00.');
    const [audit] = await gw.deps.store.auditOf(MERCHANT_ID, p.transaction_id, 1);
    expect((await admin.get(`${page}?done=${audit!.id}`)).text).not.toContain('Captured $4.00.');
  });
});
