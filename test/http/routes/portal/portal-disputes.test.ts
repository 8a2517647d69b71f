import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../support/redis-world.js';
import { MERCHANT_ID } from '../../../support/gateway.js';
import { jobOf } from '../../../support/jobs.js';
import { pay, postBatch, ref } from '../../../support/operations.js';
import { CARDS } from '../../../support/cards.js';
import { portalMerchants, PORTAL, postForm, signedIn, tokenOfForm } from '../../../support/portal.js';
import { commitDisputeChange } from '../../../../src/core/disputes/write.js';
import { emptyEvidence } from '../../../../src/core/records/dispute-record.js';

const world = redisWorld('portal-disputes');
const DAY = 86_400_000;

async function disputed(card: string = CARDS.disputeFraud) {
  const clock = new ManualClock();
  const gw = world.gateway('portal-disputes', clock, { merchants: await portalMerchants() });
  const paid = await pay(gw.app, { card });
  await postBatch(gw.app, 'capture', [ref(paid)]);
  await jobOf(gw, 'dispute-steps').runOnce();
  return { gw, clock, paid, disputeId: `${paid.transaction_id}-D01` };
}

describe('the portal’s disputes', () => {
  it('when a payment is disputed, then the list shows it by due date with days left, and the payment’s page links it', async () => {
    const { gw, clock, paid, disputeId } = await disputed();
    clock.advance(2 * DAY);
    const second = await pay(gw.app, { card: CARDS.disputeInquiry });
    await postBatch(gw.app, 'capture', [ref(second)]);
    await jobOf(gw, 'dispute-steps').runOnce();
    const viewer = await signedIn(gw.app, PORTAL.viewer);
    const list = await viewer.get('/portal/disputes');
    expect(list.status).toBe(200);
    // the earlier due date first: 5 days left, then 7
    const first = list.text.indexOf(disputeId);
    const later = list.text.indexOf(`${second.transaction_id}-D01`);
    expect(first).toBeGreaterThan(0);
    expect(later).toBeGreaterThan(first);
    expect(list.text).toContain('5 days');
    expect(list.text).toContain('Fraudulent');
    expect(list.text).toContain('Inquiry');
    const payment = await viewer.get(`/portal/payments/${paid.transaction_id}`);
    expect(payment.text).toContain(`href="/portal/disputes/${disputeId}"`);
  });

  it('when a viewer opens a dispute, then it shows its story and no form, and a forged post is refused', async () => {
    const { gw, disputeId } = await disputed();
    const viewer = await signedIn(gw.app, PORTAL.viewer);
    const page = await viewer.get(`/portal/disputes/${disputeId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('opened by the card holder’s bank');
    expect(page.text).not.toContain(`/portal/disputes/${disputeId}/evidence`);
    expect(page.text).not.toContain(`/portal/disputes/${disputeId}/accept`);
    const forged = await postForm(viewer, `/portal/disputes/${disputeId}`, `/portal/disputes/${disputeId}/accept`, {});
    expect(forged.status).toBe(403);
    expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('needs_response');
  });

  it('when an admin saves a draft and then submits, then the dispute goes under review once and both acts are audited', async () => {
    const { gw, disputeId } = await disputed();
    const admin = await signedIn(gw.app, PORTAL.admin);
    const page = `/portal/disputes/${disputeId}`;
    const draft = await postForm(admin, page, `${page}/evidence`, { product_description: 'Blue T-shirt', submit: '0' });
    expect(draft.status).toBe(303);
    const afterDraft = await gw.deps.store.getDispute(MERCHANT_ID, disputeId);
    expect(afterDraft).toMatchObject({ status: 'needs_response', evidence: { product_description: 'Blue T-shirt' } });
    const html = (await admin.get(page)).text;
    const token = tokenOfForm(html, `${page}/evidence`);
    const send = () =>
      admin
        .post(`${page}/evidence`)
        .type('form')
        .send({ _csrf: token, product_description: 'Blue T-shirt', uncategorized_text: 'winning_evidence', submit: '1' });
    const [a, b] = await Promise.all([send(), send()]);
    expect([a.status, b.status]).toEqual([303, 303]);
    const sent = await gw.deps.store.getDispute(MERCHANT_ID, disputeId);
    expect(sent!.status).toBe('under_review');
    expect(sent!.history.filter((h) => h.to === 'under_review')).toHaveLength(1);
    const audit = await gw.deps.store.auditOf(MERCHANT_ID, disputeId, 10);
    // both at the same moment of the test's clock: compared in any order
    expect(audit.map((x) => [x.action, x.detail.submit, x.email]).sort()).toEqual([
      ['dispute_evidence', '0', PORTAL.admin.email],
      ['dispute_evidence', '1', PORTAL.admin.email],
    ]);
    // under review: neither form is offered any more
    const now = (await admin.get(page)).text;
    expect(now).not.toContain(`${page}/evidence"`);
    expect(now).not.toContain(`${page}/accept"`);
  });

  it('when evidence was sent and its answer never came (the process died), then the page says so until the same evidence is sent again', async () => {
    const { gw, clock, disputeId } = await disputed();
    // what a process that died after recording the evidence, before the acquirer answered, leaves
    const d = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
    const evidence = { ...emptyEvidence(), uncategorized_text: 'winning_evidence' };
    const account = gw.deps.merchants.find(MERCHANT_ID, d.account_id)!;
    const payment = (await gw.deps.store.getPayment(MERCHANT_ID, d.transaction_id))!;
    const marked = { ...d, evidence, sent: [{ act: 'evidence' as const, at: clock.now(), n: 1, evidence }] };
    expect(await commitDisputeChange(gw.deps, account, payment, { before: d, steps: [marked] }, clock.now())).toBe('applied');
    const admin = await signedIn(gw.app, PORTAL.admin);
    const page = `/portal/disputes/${disputeId}`;
    const html = (await admin.get(page)).text;
    expect(html).toContain('its answer not known yet: evidence');
    // the time isolated left to right, so an Arabic sentence cannot reorder its digits
    expect(html).toMatch(/on \u2066\d{4}-\d{2}-\d{2} [\d:]+\u2069, its answer/);
    const sent = await postForm(admin, page, `${page}/evidence`, { uncategorized_text: 'winning_evidence', submit: '1' });
    expect(sent.status).toBe(303);
    const after = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
    expect(after.status).toBe('under_review');
    expect(after.sent).toBeUndefined();
    expect((await admin.get(page)).text).not.toContain('its answer not known yet');
  });

  it('when the dispute is lost, then the payment page offers nothing more to refund and its refund form is refused naming the dispute', async () => {
    const { gw, paid, disputeId } = await disputed();
    const admin = await signedIn(gw.app, PORTAL.admin);
    const accepted = await postForm(admin, `/portal/disputes/${disputeId}`, `/portal/disputes/${disputeId}/accept`, {});
    expect(accepted.status).toBe(303);
    expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('lost');
    const page = `/portal/payments/${paid.transaction_id}`;
    const html = (await admin.get(page)).text;
    expect(html).toContain('Up to $0.00.');
    const token = tokenOfForm(html, `${page}/refund`);
    const refused = await admin
      .post(`${page}/refund`)
      .type('form')
      .send({ _csrf: token, refund_amount: '5.00', refund_reason: 'goodwill' });
    expect(refused.status).toBe(303);
    const shown = (await admin.get(page)).text;
    expect(shown).toContain(`V3006:Refund amount exceeds what is left after a lost dispute: ${disputeId}`);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.refunded).toBe(0);
  });

  it('when evidence is too long, then the page comes back with the error tied to its field', async () => {
    const { gw, disputeId } = await disputed();
    const admin = await signedIn(gw.app, PORTAL.admin);
    const page = `/portal/disputes/${disputeId}`;
    const res = await postForm(admin, page, `${page}/evidence`, { shipping_tracking: 'x'.repeat(20_001), submit: '1' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('aria-describedby="shipping_tracking-error"');
    expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('needs_response');
  });
});
