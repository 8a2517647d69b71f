import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../src/core/kernel/clock.js';
import type { ChangeSet } from '../../src/core/ports/store.js';
import { redisWorld } from '../support/redis-world.js';
import { authoriseBody, MERCHANT_ID, ACCOUNT_ID } from '../support/gateway.js';
import { jobOf } from '../support/jobs.js';
import { faultyStore } from '../support/faults.js';
import { postBatch } from '../support/operations.js';

/**
 * The sandbox keeps its ledger in the gateway's store: an authorisation's record travels in the outcome's
 * commit (CardConnector.authoriseInCommit), one store round trip fewer. These run the gateway as it runs
 * (no connector wrapper, which would hide the path) on a real Redis, with the store failing between steps.
 */
const world = redisWorld('faults-authorise-in-commit');
const xml = new XMLParser({ parseTagValue: false });
const MINUTE = 60_000;

function setup(name: string) {
  const clock = new ManualClock();
  const faulty = faultyStore(world.redis.url);
  const commits: ChangeSet[] = [];
  const store = new Proxy(faulty.store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'commit') return (change: ChangeSet) => (commits.push(change), target.commit(change));
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const gw = world.gateway(name, clock, { store });
  return { clock, faulty, commits, gw };
}

const post = (gw: ReturnType<typeof setup>['gw'], body: Record<string, unknown>) =>
  request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));

const outcomeCommit = (c: ChangeSet) => (c.payments ?? []).some((p) => p.expected > 0 && !p.next.claim);
const acquirerRecord = async (gw: ReturnType<typeof setup>['gw'], txn: string) => gw.deps.store.ledgerOf!(MERCHANT_ID).ledgerLookup(txn);

describe('the sandbox authorisation recorded in the outcome commit', () => {
  it('when a sandbox payment is approved, then two commits are made: the claim, then the outcome carrying the acquirer record', async () => {
    const { commits, gw } = setup('in-commit-approved');
    const res = await post(gw, authoriseBody());
    const answer = xml.parse(res.text).respon;
    expect(answer.order_status).toBe('1');
    expect(commits).toHaveLength(2);
    expect(commits[0]!.acquirerRecords).toBeUndefined();
    expect(commits[1]!.acquirerRecords).toEqual([{ reference: answer.transaction_id, data: expect.stringContaining('"approved"') }]);
    const kept = JSON.parse((await acquirerRecord(gw, answer.transaction_id))!);
    expect(kept).toMatchObject({ op: 'authorise', amount: 1000, currency: 'USD', outcome: { kind: 'approved' } });
    expect(await gw.deps.connectors.get('sandbox')!.forMerchant!(MERCHANT_ID).status(answer.transaction_id)).toMatchObject({
      op: 'authorise',
      outcome: { kind: 'approved' },
    });
  });

  it("when the outcome commit fails before it is applied, then the acquirer kept nothing either, and the merchant's retry is approved once", async () => {
    const { clock, faulty, gw } = setup('in-commit-before');
    const body = authoriseBody({ notify_url: 'https://merchant.example/notify' });
    // the first try and the three read-back retries (commitMarked)
    faulty.fail({ when: outcomeCommit, mode: 'before', times: 4 });
    expect((await post(gw, body)).status).toBe(503);
    const stuck = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
    expect(stuck).toMatchObject({ status: '1000', claim: { op: 'authorise' } });
    // neither side kept the approval: the acquirer did nothing the gateway does not know of
    expect(await acquirerRecord(gw, stuck!.transaction_id)).toBeUndefined();
    // recovery finds no record: the claim waits for the merchant's retry, which is approved under the same transaction
    clock.advance(2 * MINUTE);
    await jobOf(gw, 'pending-resolve').runOnce();
    const again = xml.parse((await post(gw, body)).text).respon;
    expect(again).toMatchObject({ order_status: '1', transaction_id: stuck!.transaction_id });
    expect(JSON.parse((await acquirerRecord(gw, stuck!.transaction_id))!)).toMatchObject({ outcome: { kind: 'approved' } });
    const sent = await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no), 10);
    expect(sent.map((n) => n.fields.order_status)).toEqual(['1']);
  });

  it('when the outcome commit is applied and its answer lost, then the acquirer record and the approval are both kept, and the retry answers the approval', async () => {
    const { faulty, gw } = setup('in-commit-after');
    const body = authoriseBody();
    faulty.fail({ when: outcomeCommit, mode: 'after', times: 1 });
    const first = await post(gw, body);
    const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
    expect(p).toMatchObject({ status: '3000' });
    expect(p!.claim).toBeUndefined();
    expect(JSON.parse((await acquirerRecord(gw, p!.transaction_id))!)).toMatchObject({ outcome: { kind: 'approved' } });
    // the first call read back its own mark (the commit landed) or answered "try again"; either way the retry agrees
    if (first.status === 200) expect(xml.parse(first.text).respon.order_status).toBe('1');
    else expect(first.status).toBe(503);
    expect(xml.parse((await post(gw, body)).text).respon).toMatchObject({ order_status: '1', transaction_id: p!.transaction_id });
  });

  it("when a record is already under the reference, then the outcome commit writes nothing and the outcome is the acquirer's first one", async () => {
    const { clock, gw } = setup('in-commit-taken');
    const body = authoriseBody();
    // the reference is the transaction id, made by the gateway: plant the acquirer's record of a decline under the next one
    const sandbox = gw.deps.connectors.get('sandbox')!.forMerchant!(MERCHANT_ID);
    const ids = gw.deps.ids;
    const next = ids.transactionId;
    let planted = '';
    ids.transactionId = () => {
      planted = next();
      return planted;
    };
    const original = sandbox.authoriseInCommit!.bind(sandbox);
    sandbox.authoriseInCommit = async (req) => {
      await sandbox.authorise({ ...req, pan: '4000000000000002' });
      return original(req);
    };
    try {
      expect((await post(gw, body)).status).toBe(503);
    } finally {
      sandbox.authoriseInCommit = original;
      ids.transactionId = next;
    }
    // nothing of the approval was written: the payment waits under its claim; recovery reads the first record
    expect(JSON.parse((await acquirerRecord(gw, planted))!)).toMatchObject({ outcome: { kind: 'declined' } });
    clock.advance(2 * MINUTE);
    await jobOf(gw, 'pending-resolve').runOnce();
    expect(await gw.deps.store.getPayment(MERCHANT_ID, planted)).toMatchObject({ status: '4000' });
  });

  describe('a capture on the sandbox', () => {
    const captureOf = (txn: string, orderNo: string) => ({ transaction_id: txn, order_no: orderNo, currency: 'USD', amount: '10.00' });
    const captureCommit = (c: ChangeSet) => (c.payments ?? []).some((p) => p.next.status === '3100' && !p.next.claim);

    it('when an order is captured, then its commit carries the capture marker and the request as the acquirer keeps them', async () => {
      const { commits, gw } = setup('in-commit-capture');
      const body = authoriseBody();
      const paid = xml.parse((await post(gw, body)).text).respon;
      commits.length = 0;
      const res = await postBatch(gw.app, 'capture', [captureOf(paid.transaction_id, String(body.order_no))]);
      expect(res.body.capture_orders[0].capture_status).toBe('1');
      // the claim, then the outcome with both of the acquirer's records
      expect(commits).toHaveLength(2);
      const records = commits[1]!.acquirerRecords!;
      expect(records.map((r) => r.reference)).toEqual([expect.stringMatching(/#capture$/), `${paid.transaction_id}-cap`]);
      const sandbox = gw.deps.connectors.get('sandbox')!.forMerchant!(MERCHANT_ID);
      expect(await sandbox.status(`${paid.transaction_id}-cap`)).toMatchObject({ op: 'capture', outcome: { ok: true }, amount: 1000 });
    });

    it('when the capture commit fails before it is applied, then the acquirer kept nothing, the order answers V5002 and recovery captures once', async () => {
      const { clock, faulty, gw } = setup('in-commit-capture-before');
      const body = authoriseBody();
      const paid = xml.parse((await post(gw, body)).text).respon;
      faulty.fail({ when: captureCommit, mode: 'before', times: 4 });
      const res = await postBatch(gw.app, 'capture', [captureOf(paid.transaction_id, String(body.order_no))]);
      expect(res.body.capture_orders[0]).toMatchObject({ capture_status: '0', error_message: expect.stringMatching(/^V5002:/) });
      expect(await acquirerRecord(gw, `${paid.transaction_id}-cap`)).toBeUndefined();
      clock.advance(2 * MINUTE);
      await jobOf(gw, 'pending-resolve').runOnce();
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ status: '3100', captured: 1000 });
      const sandbox = gw.deps.connectors.get('sandbox')!.forMerchant!(MERCHANT_ID);
      expect(await sandbox.status(`${paid.transaction_id}-cap`)).toMatchObject({ op: 'capture', outcome: { ok: true } });
    });

    it('when the authorisation was captured at the acquirer under another reference, then the commit writes nothing and the order is refused', async () => {
      const { gw } = setup('in-commit-capture-taken');
      const body = authoriseBody();
      const paid = xml.parse((await post(gw, body)).text).respon;
      const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
      const sandbox = gw.deps.connectors.get('sandbox')!.forMerchant!(MERCHANT_ID);
      expect(await sandbox.capture(p!.connector_ref!, 1000, 'USD', 'someone-else-cap')).toMatchObject({ ok: true });
      const res = await postBatch(gw.app, 'capture', [captureOf(paid.transaction_id, String(body.order_no))]);
      expect(res.body.capture_orders[0].capture_status).toBe('0');
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ status: '3000', captured: 0 });
      expect(await acquirerRecord(gw, `${paid.transaction_id}-cap`)).toBeDefined();
    });
  });
});
