import { describe, expect, it } from 'vitest';
import { SandboxConnector } from '../../../src/connectors/sandbox/sandbox.js';
import { ManualClock, randomIds } from '../../../src/core/kernel/clock.js';
import { CARDS, CHALLENGE_CODE } from '../../support/cards.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import type { AcquirerLedger } from '../../../src/core/ports/acquirer-ledger.js';

const sandbox = new SandboxConnector(randomIds(new ManualClock()), new KvGatewayStore(new MemoryKv()), new ManualClock());
let n = 0;
const auth = (pan: string, threeDS: 'do3DS' | 'no3DS' = 'no3DS', reference = `T${++n}-${pan}-${threeDS}`) =>
  sandbox.authorise({ reference, pan, expMonth: '12', expYear: '2034', securityCode: '737', amount: 1000, currency: 'USD', threeDS });

describe('the sandbox connector (docs/api.md#test-cards-and-risk-triggers)', () => {
  it('when the test cards are authorised, then each gives its documented outcome', async () => {
    expect((await auth(CARDS.approved)).kind).toBe('approved');
    expect(await auth(CARDS.declined)).toMatchObject({ kind: 'declined', reason: 'DECLINED' });
    expect(await auth(CARDS.insufficientFunds)).toMatchObject({ kind: 'declined', reason: 'INSUFFICIENT_FUNDS' });
    expect(await auth(CARDS.expiredCard)).toMatchObject({ kind: 'declined', reason: 'EXPIRED_CARD' });
    expect((await auth(CARDS.processingError)).kind).toBe('error');
    expect((await auth(CARDS.challenge, 'do3DS')).kind).toBe('challenge');
    expect((await auth(CARDS.challenge, 'no3DS')).kind).toBe('approved');
  });

  it('when a challenge is answered, then 123456 passes and any other code fails', async () => {
    const started = await auth(CARDS.challenge, 'do3DS', 'T3');
    if (started.kind !== 'challenge') throw new Error('expected a challenge');
    expect((await sandbox.completeChallenge(started.connectorRef, CHALLENGE_CODE, 'T3-3ds')).kind).toBe('approved');
    const other = await auth(CARDS.challenge, 'do3DS', 'T4');
    if (other.kind !== 'challenge') throw new Error('expected a challenge');
    expect(await sandbox.completeChallenge(other.connectorRef, '000000', 'T4-3ds')).toMatchObject({
      kind: 'declined',
      reason: 'THREEDS_FAILED',
    });
  });

  it('when the same refund is asked twice (a retry after a crash), then the acquirer answers the same refund', async () => {
    const a = await sandbox.refund('sbx_X', 500, 'USD', 'T1-01');
    const b = await sandbox.refund('sbx_X', 500, 'USD', 'T1-01');
    const c = await sandbox.refund('sbx_X', 500, 'USD', 'T1-02');
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });

  it('when a refund reference is asked again with another amount, then it is refused and the kept record says what was refunded', async () => {
    expect(await sandbox.refund('sbx_R', 1000, 'USD', 'R1-01')).toEqual({ ok: true, connectorRef: 'sbx_R_rf_R1-01' });
    expect(await sandbox.refund('sbx_R', 1700, 'USD', 'R1-01')).toEqual({
      ok: false,
      message: 'sandbox: reference already used for another refund request',
    });
    expect(await sandbox.refund('sbx_R', 1000, 'EUR', 'R1-01')).toMatchObject({ ok: false });
    expect(await sandbox.status('R1-01')).toEqual({
      op: 'refund',
      outcome: { ok: true, connectorRef: 'sbx_R_rf_R1-01' },
      amount: 1000,
      currency: 'USD',
    });
  });

  it('when an authorisation reference is asked again for another amount or as another operation, then it is refused', async () => {
    const first = await auth(CARDS.approved, 'no3DS', 'A1');
    expect(first.kind).toBe('approved');
    const other = await sandbox.authorise({
      reference: 'A1',
      pan: CARDS.approved,
      expMonth: '12',
      expYear: '2034',
      amount: 5000,
      currency: 'USD',
      threeDS: 'no3DS',
    });
    expect(other).toEqual({ kind: 'error', message: 'sandbox: reference already used for another authorise request' });
    expect(await sandbox.refund('sbx_Y', 1000, 'USD', 'A1')).toMatchObject({ ok: false });
    expect(await sandbox.status('A1')).toMatchObject({ op: 'authorise', outcome: first, amount: 1000, currency: 'USD' });
  });

  it('when a capture is asked, then the marker and the record are both sent before either answers: one round trip', async () => {
    const kept = new Map<string, string>();
    const waiting: (() => void)[] = [];
    const sent: string[] = [];
    // a ledger that answers only when told: what capture sends before any answer is one round trip
    const ledger: AcquirerLedger = {
      ledgerRecord: (reference, data) => {
        sent.push(reference);
        return new Promise((resolve) =>
          waiting.push(() => {
            if (!kept.has(reference)) kept.set(reference, data);
            resolve(kept.get(reference)!);
          }),
        );
      },
      ledgerLookup: (reference) => Promise.resolve(kept.get(reference)),
    };
    const connector = new SandboxConnector(randomIds(new ManualClock()), ledger, new ManualClock());
    const captured = connector.capture('sbx_A', 1000, 'USD', 'T9-cap');
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual(['sbx_A#capture', 'T9-cap']);
    for (const answer of waiting.splice(0)) answer();
    expect(await captured).toEqual({ ok: true, connectorRef: 'sbx_A' });
    expect(await connector.status('T9-cap')).toEqual({
      op: 'capture',
      outcome: { ok: true, connectorRef: 'sbx_A' },
      amount: 1000,
      currency: 'USD',
    });
  });

  it('when an authorisation is captured under two references, then the second is refused, a retry of the first is not, and status says each', async () => {
    const store = new KvGatewayStore(new MemoryKv());
    const connector = new SandboxConnector(randomIds(new ManualClock()), store, new ManualClock());
    expect(await connector.capture('sbx_B', 1000, 'USD', 'T10-cap')).toEqual({ ok: true, connectorRef: 'sbx_B' });
    const refused = { ok: false, message: 'sandbox: authorisation already captured' };
    expect(await connector.capture('sbx_B', 1000, 'USD', 'T11-cap')).toEqual(refused);
    expect(await connector.capture('sbx_B', 1000, 'USD', 'T10-cap')).toEqual({ ok: true, connectorRef: 'sbx_B' });
    expect(await connector.status('T10-cap')).toEqual({
      op: 'capture',
      outcome: { ok: true, connectorRef: 'sbx_B' },
      amount: 1000,
      currency: 'USD',
    });
    expect(await connector.status('T11-cap')).toEqual({ op: 'capture', outcome: refused, amount: 1000, currency: 'USD' });
    expect(await connector.status('T12-cap')).toBeUndefined();
  });

  it('when a capture record was kept with its outcome (as before), or has no marker (the marker never written), then status reads it as such', async () => {
    const store = new KvGatewayStore(new MemoryKv());
    const connector = new SandboxConnector(randomIds(new ManualClock()), store, new ManualClock());
    const outcome = { ok: true, connectorRef: 'sbx_C' };
    await store.ledgerRecord('sbx_C#capture', 'T13-cap');
    await store.ledgerRecord('T13-cap', JSON.stringify({ op: 'capture', outcome, amount: 1000, currency: 'USD' }));
    expect(await connector.status('T13-cap')).toMatchObject({ op: 'capture', outcome });
    expect(await connector.capture('sbx_C', 1000, 'USD', 'T13-cap')).toEqual(outcome);
    // a record without its marker: the acquirer never took the capture, so recovery may ask it again
    await store.ledgerRecord('T14-cap', JSON.stringify({ op: 'capture', connectorRef: 'sbx_D', amount: 1000, currency: 'USD' }));
    expect(await connector.status('T14-cap')).toBeUndefined();
    expect(await connector.capture('sbx_D', 1000, 'USD', 'T14-cap')).toEqual({ ok: true, connectorRef: 'sbx_D' });
  });

  describe('the timed test cards: an acquirer that is not instant', () => {
    const clock = new ManualClock();
    const timed = new SandboxConnector(randomIds(clock), new KvGatewayStore(new MemoryKv()), clock);
    const ask = (pan: string, reference: string) =>
      timed.authorise({ reference, pan, expMonth: '12', expYear: '2034', amount: 1000, currency: 'USD', threeDS: 'no3DS' });

    it('when a processing card is authorised, then it is pending, and approved or declined three minutes later, by status and by the same request again', async () => {
      const approving = await ask(CARDS.processingApproved, 'P1');
      const declining = await ask(CARDS.processingDeclined, 'P2');
      expect([approving.kind, declining.kind]).toEqual(['pending', 'pending']);
      expect(await timed.status('P1')).toMatchObject({ op: 'authorise', outcome: { kind: 'pending' } });
      clock.advance(3 * 60_000);
      expect(await timed.status('P1')).toMatchObject({ op: 'authorise', outcome: { kind: 'approved' }, amount: 1000 });
      expect(await timed.status('P2')).toMatchObject({ op: 'authorise', outcome: { kind: 'declined', reason: 'DECLINED' } });
      expect((await ask(CARDS.processingApproved, 'P1')).kind).toBe('approved');
    });

    it('when the lost-answer card is asked, then its answer is lost, its status is unknown until the sandbox acts, and the same request answers what it did, once', async () => {
      await expect(ask(CARDS.lostAnswer, 'L1')).rejects.toThrow(/answer was lost/);
      await expect(timed.status('L1')).rejects.toThrow(/still running/);
      await expect(ask(CARDS.lostAnswer, 'L1')).rejects.toThrow(/still running/);
      clock.advance(5_000);
      const approved = await timed.status('L1');
      expect(approved).toMatchObject({ op: 'authorise', outcome: { kind: 'approved' } });
      const connectorRef = (approved!.outcome as { connectorRef: string }).connectorRef;
      expect(await ask(CARDS.lostAnswer, 'L1')).toEqual(approved!.outcome);

      await expect(timed.capture(connectorRef, 1000, 'USD', 'L1-cap')).rejects.toThrow(/answer was lost/);
      await expect(timed.status('L1-cap')).rejects.toThrow(/still running/);
      await expect(timed.refund(connectorRef, 500, 'USD', 'L1-01')).rejects.toThrow(/answer was lost/);
      clock.advance(5_000);
      expect(await timed.status('L1-cap')).toMatchObject({ op: 'capture', outcome: { ok: true }, amount: 1000 });
      expect(await timed.capture(connectorRef, 1000, 'USD', 'L1-cap')).toEqual({ ok: true, connectorRef });
      expect(await timed.refund(connectorRef, 500, 'USD', 'L1-01')).toMatchObject({ ok: true });
    });

    it('when a refund of the failing-refund card is made, then it is accepted, and failed ten minutes later', async () => {
      const approved = await ask(CARDS.refundFailsLater, 'F1');
      const connectorRef = (approved as { connectorRef: string }).connectorRef;
      expect(await timed.capture(connectorRef, 1000, 'USD', 'F1-cap')).toEqual({ ok: true, connectorRef });
      expect(await timed.refund(connectorRef, 400, 'USD', 'F1-01')).toMatchObject({ ok: true });
      expect(await timed.status('F1-01')).toMatchObject({ op: 'refund', outcome: { ok: true }, amount: 400 });
      clock.advance(10 * 60_000);
      expect(await timed.status('F1-01')).toMatchObject({
        op: 'refund',
        outcome: { ok: false, message: /failed at the bank/ },
        amount: 400,
      });
    });

    it('when a test clock reaches the sandbox, then its timed cards answer in the clock’s time', async () => {
      const frozen = new ManualClock(clock.now() + 365 * 86_400_000);
      const onClock = timed.onClock(frozen);
      await onClock.authorise({
        reference: 'C1',
        pan: CARDS.processingApproved,
        expMonth: '12',
        expYear: '2034',
        amount: 1000,
        currency: 'USD',
        threeDS: 'no3DS',
      });
      clock.advance(3 * 60_000);
      expect(await onClock.status('C1')).toMatchObject({ outcome: { kind: 'pending' } });
      frozen.advance(3 * 60_000);
      expect(await onClock.status('C1')).toMatchObject({ outcome: { kind: 'approved' } });
    });
  });
});

describe('the sandbox’s disputes, in its own time (docs/disputes.md)', () => {
  const DAY = 86_400_000;
  /** A sandbox on its own clock, and the dispute reference of an approved payment of `card`. */
  async function disputed(card: string) {
    const clock = new ManualClock();
    const connector = new SandboxConnector(randomIds(clock), new KvGatewayStore(new MemoryKv()), clock);
    const paid = await connector.authorise({
      reference: `D-${card}`,
      pan: card,
      expMonth: '12',
      expYear: '2034',
      securityCode: '737',
      amount: 1000,
      currency: 'USD',
      threeDS: 'no3DS',
    });
    if (paid.kind !== 'approved') throw new Error('expected an approval');
    const opened = clock.now();
    const ask = async () => (await connector.disputes.since(paid.connectorRef, opened))[0]!;
    return { clock, connector, ask, opened };
  }

  it('when a dispute is left unanswered, then the sandbox answers it open until its due date and lost after it, and refuses an answer then', async () => {
    const { clock, connector, ask, opened } = await disputed(CARDS.disputeFraud);
    expect(await ask()).toMatchObject({ status: 'needs_response', dueAt: opened + 7 * DAY });
    clock.advance(7 * DAY);
    expect((await ask()).status).toBe('needs_response');
    clock.advance(1);
    const lost = await ask();
    expect(lost).toMatchObject({ status: 'lost' });
    expect(lost.askAgainAt).toBeUndefined();
    expect(await connector.disputes.accept(lost.disputeRef, 'late-accept')).toMatchObject({ ok: false });
  });

  it('when the cycle card’s dispute is accepted, then the sandbox answers lost, won 2 days after it first said lost, lost again 2 days later, each with when it moves next', async () => {
    const { clock, connector, ask } = await disputed(CARDS.disputeCycle);
    const open = await ask();
    expect(open).toMatchObject({ status: 'needs_response', reason: 'duplicate' });
    expect(await connector.disputes.accept(open.disputeRef, 'accept')).toMatchObject({ ok: true });
    clock.advance(1_000);
    const decidedAt = clock.now();
    expect(await ask()).toMatchObject({ status: 'lost', askAgainAt: decidedAt + 2 * DAY });
    clock.advance(2 * DAY);
    expect(await ask()).toMatchObject({ status: 'won', askAgainAt: decidedAt + 4 * DAY });
    clock.advance(2 * DAY);
    const again = await ask();
    expect(again).toMatchObject({ status: 'lost' });
    expect(again.askAgainAt).toBeUndefined();
  });

  it('when the cycle card’s dispute is won by evidence, then the win is reversed 2 days later, and that is final', async () => {
    const { clock, connector, ask } = await disputed(CARDS.disputeCycle);
    const open = await ask();
    const evidence = { product_description: '', customer_communication: '', shipping_tracking: '', uncategorized_text: 'winning_evidence' };
    expect(await connector.disputes.submitEvidence(open.disputeRef, evidence, 'evidence')).toMatchObject({ ok: true });
    expect((await ask()).status).toBe('won');
    clock.advance(2 * DAY);
    expect(await ask()).toMatchObject({ status: 'lost' });
    clock.advance(30 * DAY);
    expect((await ask()).status).toBe('lost');
  });
});
