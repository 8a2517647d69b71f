import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../support/redis-world.js';
import { MERCHANT_ID } from '../../../support/gateway.js';
import { pay, postBatch, postQuery, ref } from '../../../support/operations.js';
import { CARDS, luhnNumber } from '../../../support/cards.js';
import { NotificationReceiver } from '../../../support/receiver.js';
import { authorise, jobOf } from '../../../support/jobs.js';
import { portalMerchants, PORTAL, postForm, signedIn } from '../../../support/portal.js';

const world = redisWorld('portal-payments');

async function gateway() {
  const clock = new ManualClock();
  const gw = world.gateway('portal-payments', clock, { merchants: await portalMerchants() });
  return { gw, clock };
}

/** The transaction ids listed on a payments page, in page order. */
const listed = (html: string): string[] => [...html.matchAll(/href="\/portal\/payments\/([^"?]+)"/g)].map((m) => decodeURIComponent(m[1]!));

describe('when an admin searches the payments', () => {
  it('then the list is newest first, filtered server-side, and paged by cursor', async () => {
    const { gw, clock } = await gateway();
    const made = [];
    for (let i = 0; i < 6; i++) {
      clock.advance(60_000);
      made.push(await pay(gw.app, { amount: `${i + 1}.00`, card: i % 2 === 0 ? CARDS.approved : CARDS.approvedMastercard }));
    }
    clock.advance(60_000);
    const declined = await pay(gw.app, { card: CARDS.declined });
    const agent = await signedIn(gw.app, PORTAL.admin);
    const all = await agent.get('/portal/payments');
    expect(listed(all.text)).toEqual([declined, ...made.slice().reverse()].map((p) => p.transaction_id));

    expect(listed((await agent.get('/portal/payments?status=4000')).text)).toEqual([declined.transaction_id]);
    expect(listed((await agent.get(`/portal/payments?order_no=${made[2]!.order_no}`)).text)).toEqual([made[2]!.transaction_id]);
    expect(listed((await agent.get(`/portal/payments?transaction_id=${made[4]!.transaction_id}`)).text)).toEqual([made[4]!.transaction_id]);
    const mastercard = listed((await agent.get('/portal/payments?last4=4444&status=3000')).text);
    expect(mastercard).toEqual([made[5]!, made[3]!, made[1]!].map((p) => p.transaction_id));
    expect(listed((await agent.get('/portal/payments?min_amount=2&max_amount=3.5')).text)).toEqual(
      [made[2]!, made[1]!].map((p) => p.transaction_id),
    );
    const none = await agent.get('/portal/payments?from=2030-01-01');
    expect(none.text).toContain('No payment matches.');

    const bad = await agent.get('/portal/payments?min_amount=1e3&last4=12');
    expect(bad.status).toBe(400);
    // the summary names the field by its label, never by its key
    expect(bad.text).toContain('Amount at least: must be an amount such as 10.00');
    expect(bad.text).not.toContain('min_amount: must');
    expect(bad.text).toContain('aria-invalid="true"');
  });

  it('then an order numbered like a card number (stored masked) is found by the number the merchant keeps', async () => {
    const { gw } = await gateway();
    // 16 digits under Visa's prefix that pass the Luhn check: masked as a card number when the payment was made
    const orderNo = luhnNumber(`40261${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`);
    const paid = await pay(gw.app, { order_no: orderNo });
    expect(paid.order_no).toBe(`${orderNo.slice(0, 6)}***${orderNo.slice(-4)}`);
    const agent = await signedIn(gw.app, PORTAL.admin);
    for (const typed of [orderNo, paid.order_no]) {
      expect(listed((await agent.get(`/portal/payments?order_no=${encodeURIComponent(typed)}`)).text)).toEqual([paid.transaction_id]);
    }
  });

  it('then pages follow one another without gaps or repeats (cursor across two accounts)', async () => {
    const { gw, clock } = await gateway();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      if (i % 3 === 0) clock.advance(1000); // several payments share a creation time: ties are ordered by id
      ids.push((await pay(gw.app, {}, i % 4 === 0)).transaction_id);
    }
    const agent = await signedIn(gw.app, PORTAL.admin);
    const seen: string[] = [];
    let link = '/portal/payments';
    for (let page = 0; page < 5 && link; page++) {
      const res = await agent.get(link);
      seen.push(...listed(res.text));
      link = /href="([^"]+)" rel="next"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
    }
    expect(seen).toHaveLength(30);
    expect(new Set(seen)).toEqual(new Set(ids));
  });

  it('then the CSV export streams every matching payment, formulas defused', async () => {
    const { gw, clock } = await gateway();
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await pay(gw.app, { order_no: `=HYPERLINK("x")-${i}`, amount: '7.00' });
    }
    await pay(gw.app, { amount: '9.00' });
    const agent = await signedIn(gw.app, PORTAL.admin);
    const res = await agent.get('/portal/payments.csv?max_amount=8').buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'transaction_id,order_no,account_id,created,currency,amount,captured_amount,refunded_amount,payment_status,result_info,card,risk_action,threeds_result,source',
    );
    expect(lines).toHaveLength(4);
    for (const line of lines.slice(1)) {
      expect(line).toContain(`"'=HYPERLINK(""x"")-`);
      expect(line).toContain(',USD,7.00,0.00,0.00,3000,');
      expect(line).toContain('424242***4242');
    }
    expect(res.text).not.toContain('4242424242424242');
  });
});

describe('when an admin acts on payments in the portal', () => {
  it('then capture, refund, cancel and resend go through the core as the API does, are recorded, and the API sees them', async () => {
    const { gw } = await gateway();
    // a's first delivery fails (whichever of its notifications goes first), every later one succeeds
    const receiver = await new NotificationReceiver([500, 200]).start();
    const other = await new NotificationReceiver([200]).start();
    world.receivers.push(receiver, other);
    const a = await pay(gw.app, { notify_url: receiver.url });
    const b = await pay(gw.app, { notify_url: other.url });
    const agent = await signedIn(gw.app, PORTAL.admin);
    const pageOf = (id: string) => `/portal/payments/${id}`;

    const over = await postForm(agent, pageOf(a.transaction_id), `/portal/payments/${a.transaction_id}/capture`, { amount: '10.01' });
    expect(over.status).toBe(303);
    expect((await agent.get(over.headers.location!)).text).toContain('Not done: Capture amount exceeds the authorised amount');
    const bad = await postForm(agent, pageOf(a.transaction_id), `/portal/payments/${a.transaction_id}/capture`, { amount: '-1' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Amount to capture: must be an amount such as 10.00');
    expect(bad.text).not.toMatch(/>amount: must/);

    const cap = await postForm(agent, pageOf(a.transaction_id), `/portal/payments/${a.transaction_id}/capture`, { amount: '6.00' });
    expect(cap.status).toBe(303);
    const afterCapture = await agent.get(cap.headers.location!);
    expect(afterCapture.text).toContain('Captured $6.00.');
    expect(afterCapture.text).toMatch(/id="amount-captured">\$6\.00</);
    const refund = await postForm(agent, pageOf(a.transaction_id), `/portal/payments/${a.transaction_id}/refund`, {
      refund_amount: '2.5',
      refund_reason: 'returned item',
    });
    expect(refund.status).toBe(303);
    const cancel = await postForm(agent, pageOf(b.transaction_id), `/portal/payments/${b.transaction_id}/cancel`, {});
    expect(cancel.status).toBe(303);

    const q = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: `${a.transaction_id},${b.transaction_id}` });
    const byId = Object.fromEntries(
      (q.body.orders_list as { transaction_id: string; payment_status: string }[]).map((o) => [o.transaction_id, o]),
    );
    expect(byId[a.transaction_id]!.payment_status).toBe('3200');
    expect(byId[b.transaction_id]!.payment_status).toBe('4100');
    const refunds = await postQuery(gw.app, '/v1/retrievalRefund', { transaction_id: a.transaction_id });
    expect(refunds.body.refund_orders).toMatchObject([
      { refund_amount: '2.50', refund_reason: 'returned item', refund_reference_id: `${a.transaction_id}-01` },
    ]);

    // the notifications of each action were queued like the API's; deliver them (the first attempt fails)
    await jobOf(gw, 'notification-delivery').runOnce();
    const page = await agent.get(pageOf(a.transaction_id));
    // the failed attempt is summed up on its notification: its outcome and the retry to come
    expect(page.text).toMatch(/class="last-attempt"><bdi dir="ltr">[^<]+ · HTTP 500<\/bdi>/);
    expect(page.text).toMatch(/class="next-retry"><bdi dir="ltr">\d{4}-/);
    const notifyIds = [...page.text.matchAll(/name="notify_id" value="([^"]+)"/g)].map((m) => m[1]!);
    expect(notifyIds.length).toBeGreaterThanOrEqual(3); // payment, capture, refund
    const resend = await postForm(agent, pageOf(a.transaction_id), `/portal/payments/${a.transaction_id}/resend`, {
      notify_id: notifyIds[0]!,
    });
    expect(resend.status).toBe(303);
    expect((await gw.deps.store.getOutbox(MERCHANT_ID, notifyIds[0]!))?.status).toBe('pending');
    await jobOf(gw, 'notification-delivery').runOnce();
    const story = (await agent.get(pageOf(a.transaction_id))).text;
    expect(story).toMatch(/Notification delivered: [^<]*\(HTTP 200; attempts: 2\)/);
    // every action is recorded with the user and shown; the history has the status moves in order
    for (const what of ['capture 10.01 USD', 'capture 6.00 USD', 'refund 2.50 USD returned item', 'resend']) {
      expect(story.replace(/<\/?bdi[^>]*>/g, '')).toContain(`${PORTAL.admin.email} · ${what}`);
    }
    const history = /<ol class="log" id="history">([\s\S]*?)<\/ol>/.exec(story)![1]!;
    expect(history.indexOf('Authorised → Captured')).toBeGreaterThan(0);
    expect(history.indexOf('Captured → Partly refunded')).toBeGreaterThan(history.indexOf('Authorised → Captured'));
    const audit = await gw.deps.store.auditOf(MERCHANT_ID, undefined, 50);
    expect(audit.map((r) => r.action).sort()).toEqual(['cancel', 'capture', 'capture', 'refund', 'resend']);
    expect(audit.every((r) => r.email === PORTAL.admin.email)).toBe(true);
  });
});

describe('when a portal refund and an API refund of one payment race', () => {
  it('then the refunded total never exceeds the captured amount', async () => {
    const { gw } = await gateway();
    const agent = await signedIn(gw.app, PORTAL.admin);
    for (let round = 0; round < 5; round++) {
      const p = await pay(gw.app);
      await postBatch(gw.app, 'capture', [ref(p, { amount: '8.00' })]);
      const page = `/portal/payments/${p.transaction_id}`;
      const token = /name="_csrf" value="([^"]+)"/.exec((await agent.get(page)).text)![1]!;
      const [portal, api] = await Promise.all([
        agent.post(`${page}/refund`).type('form').send({ _csrf: token, refund_amount: '5.00', refund_reason: 'portal' }),
        postBatch(gw.app, 'refund', [ref(p, { refund_amount: '5.00', refund_reason: 'api' })]),
      ]);
      expect(portal.status).toBe(303);
      expect(api.status).toBe(200);
      const stored = (await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!;
      expect(stored.captured).toBe(800);
      expect(stored.refunded).toBe(500);
      expect(stored.refunds).toHaveLength(1);
      const apiWon = api.body.refund_orders[0].refund_status === '1';
      const portalText = (await agent.get(portal.headers.location!)).text;
      expect(portalText).toContain(apiWon ? 'Not done: Refund amount exceeds' : 'Refunded $5.00.');
      expect(stored.refunds[0]!.refund_reason).toBe(apiWon ? 'api' : 'portal');
    }
  });
});

describe('when the other portal pages are opened', () => {
  it('then refunds, payouts and balances, and subscriptions answer the merchant only', async () => {
    const { gw } = await gateway();
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00', refund_reason: 'api refund' })]);
    const agent = await signedIn(gw.app, PORTAL.admin);
    const refunds = await agent.get('/portal/refunds');
    expect(refunds.text).toContain(`${p.transaction_id}-01`);
    expect((await agent.get(`/portal/refunds?refund_reference_id=${p.transaction_id}-01`)).text).toContain('api refund');
    const other = await signedIn(gw.app, PORTAL.other);
    expect((await other.get('/portal/refunds')).text).not.toContain(p.transaction_id);
    expect((await agent.get('/portal/payouts')).status).toBe(200);
    expect((await agent.get('/portal/subscriptions?recurring_id=nope')).text).toContain('No such subscription');
    expect((await request(gw.app).get('/portal/refunds')).status).toBe(303);
  });
});

describe('when a subscription is cancelled in the portal', () => {
  it('then the contract is Inactived through the same core as /v1/cancelsubscription, recorded, and a viewer cannot', async () => {
    const { gw } = await gateway();
    const answer = await authorise(gw, {
      notify_url: 'http://127.0.0.1:9/notify',
      subscription: {
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
      },
    });
    const rid = answer.recurring_id!;
    const page = `/portal/subscriptions?recurring_id=${rid}`;
    const viewer = await signedIn(gw.app, PORTAL.viewer);
    const seen = await viewer.get(page);
    expect(seen.text).toContain('Gold plan');
    expect(seen.text).not.toContain('/cancel"');
    expect((await postForm(viewer, page, `/portal/subscriptions/${rid}/cancel`, {})).status).toBe(403);
    const other = await signedIn(gw.app, PORTAL.other);
    expect((await other.get(page)).text).toContain('No such subscription');
    expect((await postForm(other, page, `/portal/subscriptions/${rid}/cancel`, {})).status).toBe(404);
    expect((await gw.deps.store.getContract(MERCHANT_ID, rid))?.status).toBe('Active');

    const admin = await signedIn(gw.app, PORTAL.admin);
    const done = await postForm(admin, page, `/portal/subscriptions/${rid}/cancel`, {});
    expect(done.status).toBe(303);
    const after = await admin.get(done.headers.location!);
    expect(after.text).toContain('Done: subscription Inactived');
    expect(after.text).toMatch(/id="contract-status">Cancelled <span class="code">\(Inactived\)</);
    expect((await gw.deps.store.getContract(MERCHANT_ID, rid))?.status).toBe('Inactived');
    const outbox = await gw.deps.store.outboxOfOrder(MERCHANT_ID, answer.account_id ?? '1000001001', answer.order_no!, 10);
    expect(outbox.map((o) => o.notify_type)).toContain('subscription_cancel');
    expect(await gw.deps.store.auditOf(MERCHANT_ID, rid, 5)).toMatchObject([
      { action: 'subscription_cancel', email: PORTAL.admin.email, ok: true },
    ]);
  });
});
