import { createHash } from 'node:crypto';
import type { ChangeSet, DueQueue, GatewayStore, PaymentIndexEntry, RefundIndexEntry } from '../core/ports/store.js';
import type { PortalSession } from '../core/portal/sessions.js';
import type { AuditRecord } from '../core/portal/audit.js';
import type { LoginFailures, ThrottleScope } from '../core/portal/throttle.js';
import type { PortalPassword } from '../core/portal/users.js';
import type { PortalFlash, PortalFormRecord } from '../core/records/form-records.js';
import { withLaterFields, type Payment } from '../core/records/payment.js';
import { rollUpApprovals } from '../core/payments/measure.js';
import type { Contract } from '../core/records/contract.js';
import type { IdempotencyRecord } from '../core/idempotency/idempotency-key.js';
import type { OutboxRecord } from '../core/notifications/outbox.js';
import type { VaultRecord } from '../core/records/vault.js';
import type { SavedCard, ShopperScope } from '../core/records/saved-card-record.js';
import type { DepositBalance, Payout } from '../core/records/payout.js';
import { isFinalPayout } from '../core/payouts/payout-state.js';
import type { CheckoutSession } from '../core/records/session.js';
import type { AcquirerLedger } from '../core/ports/acquirer-ledger.js';
import { CLOCK_QUEUES, type ClockMark, type TestClock } from '../core/records/clock-record.js';
import { isOpenDispute, type DisputeRecord } from '../core/records/dispute-record.js';
import { DISCREPANCY_KINDS, type DiscrepancyRecord, type ReconcilePass } from '../core/records/reconcile-records.js';
import type { Condition, KvStore, Versioned, Write } from './kv.js';
import type { MerchantStore } from '../core/ports/merchant-store.js';
import { keys } from './keys.js';
import { DAY_FIGURES_TTL_MS, disputeOpened, figureChanges, paymentFigures, type FigureAdd } from '../core/records/day-figures-record.js';
import { KvMerchantStore } from './merchant-store.js';

export { keys };

/**
 * How a text sent by a merchant is written into a key name: hashed, never as sent. Key names are listed in
 * clear (SCAN, MONITOR, a snapshot's key list), and a merchant may send a card number as its Idempotency-Key.
 * The gateway's store is given the vault's keyed hash (compose.ts), which no one can reverse by trying card
 * numbers; a store made without one (tests) uses SHA-256.
 */
export type KeyNameHash = (text: string) => string;

const sha256Name: KeyNameHash = (text) => createHash('sha256').update(text, 'utf8').digest('base64url');

function decode<T extends { version: number }>(v: Versioned | undefined): T | undefined {
  if (!v) return undefined;
  const record = JSON.parse(v.data) as T;
  record.version = v.version;
  return record;
}

/** A stored payment, in the one shape it keeps while flows copy it (withLaterFields). */
function decodePayment(v: Versioned | undefined): Payment | undefined {
  const p = decode<Payment>(v);
  return p && withLaterFields(p);
}

/**
 * Serialises a versioned record without its version (the store keeps that itself). JSON leaves an undefined
 * field out; a spread is much cheaper than a rest destructuring, which V8 copies property by property.
 */
function encode(record: { version: number }): string {
  return JSON.stringify({ ...record, version: undefined });
}

/** The gateway store over any KvStore: one implementation of the domain mapping for both adapters. */
export class KvGatewayStore implements GatewayStore {
  /** a payment object's figures before the commit that marked it, so the same change committed again counts the same */
  private readonly countedBefore = new WeakMap<Payment, { at: number; days: Record<string, number[]> }>();

  constructor(
    private kv: KvStore,
    private readonly keyNameHash: KeyNameHash = sha256Name,
    /** GATEWAY_TIMEZONE: the days of the portal home's figures */
    private readonly timezone = 'UTC',
  ) {}

  /**
   * The portal home's counters this change moves (docs/portal.md#home), as one write per day touched: what each
   * payment's figures become less what its record says they were (its `counted`, set here on the caller's copy
   * too, so a later write of that copy starts from it), and each dispute opened. Written in the same commit as
   * the change, under its conditions: a commit applied once counts once. A test clock's objects are not counted,
   * nor a payment stored before the counters (no `counted`).
   */
  private countDayFigures(m: string, change: ChangeSet, writes: Write[]): void {
    const adds: FigureAdd[] = [];
    for (const { next, expected } of change.payments ?? []) {
      let before: Record<string, number[]>;
      const again = this.countedBefore.get(next);
      if (expected === 0) before = {};
      else if (again && again.at === expected + 1) before = again.days;
      else if (next.counted) before = next.counted.days;
      else continue;
      const after = paymentFigures(next, this.timezone);
      adds.push(...figureChanges(next, before, after));
      this.countedBefore.set(next, { at: expected + 1, days: before });
      next.counted = { at: expected + 1, days: after };
    }
    for (const { next, expected } of change.disputes ?? []) if (expected === 0) adds.push(...disputeOpened(next, this.timezone));
    if (adds.length === 0) return;
    const byDay = new Map<string, { fields: string[]; by: number[] }>();
    for (const a of adds) {
      let day = byDay.get(a.day);
      if (!day) byDay.set(a.day, (day = { fields: [], by: [] }));
      day.fields.push(a.field);
      day.by.push(a.by);
    }
    for (const [day, { fields, by }] of byDay)
      writes.push({ op: 'tally', key: keys.homeDay(m, day), fields, by, ttlMs: DAY_FIGURES_TTL_MS });
  }

  /** The portal home's raw counters of each day asked (YYYYMMDD), in order. */
  async dayCounters(m: string, days: readonly string[]): Promise<Record<string, number>[]> {
    return Promise.all(days.map((day) => this.kv.counters(keys.homeDay(m, day))));
  }

  /** The key name of an Idempotency-Key's record. */
  private idempotencyKey(m: string, account: string, key: string): string {
    return keys.idempotency(m, account, this.keyNameHash(`Idempotency-Key\n${key}`));
  }

  /** The hashed name of a shopper in key names: a shopper_id may be an e-mail address. */
  private shopperName(scope: ShopperScope): string {
    return this.keyNameHash(`shopper_id\n${scope.shopperId}`);
  }

  async commit(change: ChangeSet): Promise<boolean> {
    const m = change.merchantId;
    const conditions: Condition[] = [];
    const writes: Write[] = [];
    const clock = change.clock;
    const dueKey = (queue: DueQueue) => (clock === undefined ? keys.due(m, queue) : keys.clockDue(m, clock, queue));
    if (clock !== undefined) this.listClockObjects(m, clock, change, writes);
    else this.countDayFigures(m, change, writes);
    for (const { next, expected } of change.payments ?? []) {
      const key = keys.payment(m, next.transaction_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
      if (expected === 0) {
        const orderKey = keys.order(m, next.account_id, next.order_no);
        conditions.push({ key: orderKey, version: 0 });
        writes.push({ op: 'put', key: orderKey, data: next.transaction_id });
        writes.push({ op: 'zadd', key: keys.paymentsByTime(m, next.account_id), score: next.created_at, member: next.transaction_id });
      }
    }
    for (const card of change.cards ?? []) {
      writes.push({ op: 'put', key: keys.card(m, card.token), data: JSON.stringify(card) });
    }
    for (const token of change.dropCards ?? []) writes.push({ op: 'del', key: keys.card(m, token) });
    for (const card of change.savedCards ?? []) {
      const shopper = this.shopperName({ merchantId: m, accountId: card.account_id, shopperId: card.shopper_id });
      const key = keys.savedCard(m, card.account_id, shopper, card.card_id);
      conditions.push({ key, version: 0 });
      writes.push({ op: 'put', key, data: encode(card) });
      writes.push({ op: 'zadd', key: keys.savedCards(m, card.account_id, shopper), score: card.created_at, member: card.card_id });
    }
    for (const { scope, cardId, expected } of change.dropSavedCards ?? []) {
      const shopper = this.shopperName(scope);
      const key = keys.savedCard(m, scope.accountId, shopper, cardId);
      conditions.push({ key, version: expected });
      writes.push({ op: 'del', key }, { op: 'zrem', key: keys.savedCards(m, scope.accountId, shopper), member: cardId });
    }
    for (const { next, expected } of change.contracts ?? []) {
      const key = keys.contract(m, next.recurring_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
    }
    for (const { next, expected } of change.outbox ?? []) {
      const key = keys.outbox(m, next.notify_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
      const orderNo = next.fields.order_no;
      if (expected === 0 && orderNo) {
        writes.push({ op: 'zadd', key: keys.orderOutbox(m, next.account_id, orderNo), score: next.created_at, member: next.notify_id });
      }
      const queueKey = dueKey('outbox');
      const pendingKey = clock === undefined ? keys.outboxPending(m) : keys.clockDue(m, clock, 'outbox-pending');
      const member = next.notify_id;
      if (next.status === 'pending') {
        const score = next.lease_until ?? next.next_attempt_at;
        writes.push({ op: 'zadd', key: queueKey, score, member }, { op: 'zadd', key: pendingKey, score, member });
      } else {
        writes.push({ op: 'zrem', key: queueKey, member }, { op: 'zrem', key: pendingKey, member });
      }
    }
    for (const o of change.outboxUnchanged ?? []) conditions.push({ key: keys.outbox(m, o.notifyId), version: o.version });
    for (const { next, expected, ttlMs } of change.checkoutSessions ?? []) {
      const key = keys.checkout(m, next.session_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next), ttlMs });
    }
    for (const o of change.checkoutOrders ?? []) {
      const key = keys.checkoutOrder(m, o.accountId, o.orderNo);
      conditions.push({ key, version: o.expected });
      writes.push({ op: 'put', key, data: o.sessionId, ttlMs: o.ttlMs });
    }
    for (const o of change.unusedOrders ?? []) {
      conditions.push({ key: keys.order(m, o.accountId, o.orderNo), version: 0 });
      conditions.push({ key: keys.checkoutOrder(m, o.accountId, o.orderNo), version: 0 });
    }
    for (const d of change.due ?? []) {
      const key = dueKey(d.queue);
      writes.push(d.at === null ? { op: 'zrem', key, member: d.member } : { op: 'zadd', key, score: d.at, member: d.member });
    }
    for (const c of change.counters ?? []) writes.push({ op: 'hincr', key: keys.approvals(m, c.accountId), fields: c.fields, by: 1 });
    for (const r of change.acquirerRecords ?? []) writes.push({ op: 'once', key: keys.acquirerOf(m, r.reference), data: r.data });
    for (const r of change.refunds ?? []) {
      writes.push({
        op: 'zadd',
        key: keys.refundsByDate(m, r.accountId),
        score: r.at,
        member: `${r.refundReferenceId}\u0000${r.transactionId}`,
      });
      writes.push({ op: 'put', key: keys.refund(m, r.accountId, r.refundReferenceId), data: r.transactionId });
    }
    for (const i of change.idempotency ?? []) {
      const key = this.idempotencyKey(m, i.accountId, i.key);
      conditions.push({ key, version: i.expected });
      writes.push(i.next === null ? { op: 'del', key } : { op: 'put', key, data: encode(i.next), ttlMs: i.ttlMs });
    }
    for (const { next, expected } of change.payouts ?? []) {
      const key = keys.payout(m, next.transaction_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
      if (expected === 0) {
        const requestKey = keys.payoutRequest(m, next.account_id, next.request_id);
        conditions.push({ key: requestKey, version: 0 });
        writes.push({ op: 'put', key: requestKey, data: next.transaction_id });
      }
    }
    for (const { next, expected } of change.balances ?? []) {
      const key = keys.balance(m, next.account_id, next.currency);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
    }
    for (const { next, expected } of change.disputes ?? []) {
      const key = keys.dispute(m, next.dispute_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
      if (expected === 0)
        writes.push({ op: 'zadd', key: keys.disputesByTime(m, next.account_id), score: next.opened_at, member: next.dispute_id });
      const open = keys.openDisputes(m, next.account_id);
      writes.push(
        next.closed_at === null
          ? { op: 'zadd', key: open, score: next.due_at, member: next.dispute_id }
          : { op: 'zrem', key: open, member: next.dispute_id },
      );
    }
    for (const { next, expected } of change.testClocks ?? []) {
      const key = keys.testClock(m, next.test_clock_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
      if (expected === 0) writes.push({ op: 'zadd', key: keys.testClocks(m), score: next.created_at, member: next.test_clock_id });
    }
    for (const { next, expected } of change.discrepancies ?? []) {
      const key = keys.discrepancy(m, next.transaction_id, next.kind);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
    }
    for (const { next, expected } of change.reconcilePasses ?? []) {
      const key = keys.reconcilePass(m, next.account_id);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
    }
    for (const { id, next, expected, ttlMs } of change.portalSessions ?? []) {
      const key = keys.portalSession(m, id);
      if (expected >= 0) conditions.push({ key, version: expected });
      writes.push(next === null ? { op: 'del', key } : { op: 'put', key, data: encode(next), ttlMs });
    }
    for (const a of change.audit ?? []) {
      for (const key of [keys.audit(m, a.subject), keys.audit(m, undefined)]) {
        writes.push({ op: 'zadd', key, score: a.at, member: JSON.stringify(a) });
      }
    }
    for (const { next, expected } of change.portalPasswords ?? []) {
      const key = keys.portalPassword(m, next.email);
      conditions.push({ key, version: expected });
      writes.push({ op: 'put', key, data: encode(next) });
    }
    for (const f of change.portalForms ?? []) {
      const key = keys.portalForm(m, f.sessionId, f.nonce);
      conditions.push({ key, version: f.expected });
      writes.push({ op: 'put', key, data: encode(f.next), ttlMs: f.ttlMs });
    }
    for (const f of change.portalFlash ?? []) {
      const key = keys.portalFlash(m, f.sessionId);
      if (f.expected >= 0) conditions.push({ key, version: f.expected });
      writes.push(f.next === null ? { op: 'del', key } : { op: 'put', key, data: encode(f.next), ttlMs: f.ttlMs });
    }
    return (await this.kv.commit(conditions, writes)).ok;
  }

  /**
   * A clock's change: every payment it writes carries the clock (set on the caller's copy too, so the flow's later
   * writes of that copy keep it), and what it creates is listed under the clock for its deletion.
   */
  private listClockObjects(m: string, clock: string, change: ChangeSet, writes: Write[]): void {
    const list = (member: string) => writes.push({ op: 'zadd', key: keys.clockObjects(m, clock), score: 0, member });
    for (const { next, expected } of change.payments ?? []) {
      (next as ClockMark).test_clock_id = clock;
      if (expected === 0) list(`pay:${next.transaction_id}`);
    }
    for (const { next, expected } of change.contracts ?? []) if (expected === 0) list(`contract:${next.recurring_id}`);
    for (const { next, expected } of change.outbox ?? []) if (expected === 0) list(`outbox:${next.notify_id}`);
    for (const { next, expected } of change.disputes ?? []) {
      (next as ClockMark).test_clock_id = clock;
      if (expected === 0) list(`dispute:${next.dispute_id}`);
    }
    for (const { next, expected } of change.payouts ?? []) {
      (next as ClockMark).test_clock_id = clock;
      if (expected === 0) list(`payout:${next.transaction_id}`);
    }
    for (const { next, expected } of change.discrepancies ?? [])
      if (expected === 0) list(`discrepancy:${next.transaction_id}:${next.kind}`);
  }

  async discrepanciesOf(m: string, txn: string): Promise<DiscrepancyRecord[]> {
    const found = await this.kv.getMany(DISCREPANCY_KINDS.map((kind) => keys.discrepancy(m, txn, kind)));
    return found.flatMap((v) => decode<DiscrepancyRecord>(v) ?? []);
  }

  async getReconcilePasses(m: string, accounts: readonly string[]): Promise<(ReconcilePass | undefined)[]> {
    return (await this.kv.getMany(accounts.map((a) => keys.reconcilePass(m, a)))).map((v) => decode<ReconcilePass>(v));
  }

  async getTestClock(m: string, clock: string): Promise<TestClock | undefined> {
    return decode<TestClock>(await this.kv.get(keys.testClock(m, clock)));
  }

  async testClocksOf(m: string, limit: number): Promise<TestClock[]> {
    const ids = await this.kv.range(keys.testClocks(m), -Infinity, Infinity, limit);
    const found = await this.kv.getMany(ids.map((h) => keys.testClock(m, h.member)));
    return found.flatMap((v) => decode<TestClock>(v) ?? []);
  }

  async deleteTestClock(m: string, clock: TestClock): Promise<boolean> {
    const id = clock.test_clock_id;
    const objects = await this.kv.range(keys.clockObjects(m, id), -Infinity, Infinity, 1_000_000);
    const ids = (kind: string) => objects.flatMap((o) => (o.member.startsWith(`${kind}:`) ? [o.member.slice(kind.length + 1)] : []));
    const writes: Write[] = [];
    const payments = (await this.getPayments(m, ids('pay'))).flatMap((p) => p ?? []);
    for (const p of payments) {
      writes.push(
        { op: 'del', key: keys.payment(m, p.transaction_id) },
        { op: 'del', key: keys.order(m, p.account_id, p.order_no) },
        { op: 'zrem', key: keys.paymentsByTime(m, p.account_id), member: p.transaction_id },
        { op: 'del', key: keys.orderOutbox(m, p.account_id, p.order_no) },
      );
      if (p.vault_created && p.vault_token) writes.push({ op: 'del', key: keys.card(m, p.vault_token) });
      for (const r of p.refunds) {
        writes.push(
          { op: 'del', key: keys.refund(m, p.account_id, r.refund_reference_id) },
          { op: 'zrem', key: keys.refundsByDate(m, p.account_id), member: `${r.refund_reference_id}\u0000${p.transaction_id}` },
        );
      }
    }
    for (const recurringId of ids('contract')) writes.push({ op: 'del', key: keys.contract(m, recurringId) });
    // what the clock's objects still under way took from the deposit balance is given back, in the same commit,
    // under the balance's version: a payout not completed (nor failed and credited back already), a dispute
    // still open (its amount and fee); a decided dispute or a completed payout moved money that stays moved
    const conditions: Condition[] = [{ key: keys.testClock(m, id), version: clock.version }];
    const credits = new Map<string, { account: string; currency: string; amount: number }>();
    const giveBack = (account: string, currency: string, amount: number) => {
      const at = `${account}\u0000${currency}`;
      const credit = credits.get(at) ?? { account, currency, amount: 0 };
      credits.set(at, { ...credit, amount: credit.amount + amount });
    };
    for (const d of (await this.getDisputes(m, ids('dispute'))).flatMap((x) => x ?? [])) {
      writes.push(
        { op: 'del', key: keys.dispute(m, d.dispute_id) },
        { op: 'zrem', key: keys.disputesByTime(m, d.account_id), member: d.dispute_id },
        { op: 'zrem', key: keys.openDisputes(m, d.account_id), member: d.dispute_id },
      );
      if (isOpenDispute(d.status)) giveBack(d.account_id, d.currency, d.amount + d.fee);
    }
    for (const notifyId of ids('outbox')) writes.push({ op: 'del', key: keys.outbox(m, notifyId) });
    for (const found of ids('discrepancy')) {
      const at = found.lastIndexOf(':');
      writes.push({ op: 'del', key: keys.discrepancy(m, found.slice(0, at), found.slice(at + 1)) });
    }
    for (const p of (await Promise.all(ids('payout').map((txn) => this.getPayout(m, txn)))).flatMap((x) => x ?? [])) {
      writes.push(
        { op: 'del', key: keys.payout(m, p.transaction_id) },
        { op: 'del', key: keys.payoutRequest(m, p.account_id, p.request_id) },
      );
      if (!isFinalPayout(p.status)) giveBack(p.account_id, p.request.source_currency, p.amount_payer_pays);
    }
    for (const c of credits.values()) {
      const balance = await this.getBalance(m, c.account, c.currency);
      if (!balance) continue;
      const key = keys.balance(m, c.account, c.currency);
      conditions.push({ key, version: balance.version });
      const credited: DepositBalance = { ...balance, available: balance.available + c.amount };
      writes.push({ op: 'put', key, data: encode(credited) });
    }
    for (const queue of [...CLOCK_QUEUES, 'outbox-pending'] as const) writes.push({ op: 'del', key: keys.clockDue(m, id, queue) });
    writes.push(
      { op: 'del', key: keys.clockObjects(m, id) },
      { op: 'del', key: keys.testClock(m, id) },
      { op: 'zrem', key: keys.testClocks(m), member: id },
      { op: 'zrem', key: keys.due(m, 'test_clock'), member: id },
    );
    return (await this.kv.commit(conditions, writes)).ok;
  }

  async paymentsByTime(m: string, account: string, from: number, to: number, limit: number): Promise<PaymentIndexEntry[]> {
    const hits = await this.kv.range(keys.paymentsByTime(m, account), from, to, limit, true);
    return hits.map((h) => ({ transactionId: h.member, at: h.score }));
  }

  async getDispute(m: string, id: string): Promise<DisputeRecord | undefined> {
    return decode<DisputeRecord>(await this.kv.get(keys.dispute(m, id)));
  }

  async getDisputes(m: string, ids: readonly string[]): Promise<(DisputeRecord | undefined)[]> {
    return (await this.kv.getMany(ids.map((id) => keys.dispute(m, id)))).map((v) => decode<DisputeRecord>(v));
  }

  async disputesByTime(m: string, account: string, from: number, to: number, limit: number): Promise<string[]> {
    return (await this.kv.range(keys.disputesByTime(m, account), from, to, limit, true)).map((h) => h.member);
  }

  async openDisputes(m: string, account: string, limit: number): Promise<string[]> {
    return (await this.kv.range(keys.openDisputes(m, account), -Infinity, Infinity, limit)).map((h) => h.member);
  }

  async getPortalSession(m: string, id: string): Promise<PortalSession | undefined> {
    return decode<PortalSession>(await this.kv.get(keys.portalSession(m, id)));
  }

  async auditOf(m: string, subject: string | undefined, limit: number): Promise<AuditRecord[]> {
    const hits = await this.kv.range(keys.audit(m, subject), -Infinity, Infinity, limit, true);
    return hits.map((h) => JSON.parse(h.member) as AuditRecord);
  }

  async getPortalPassword(m: string, email: string): Promise<PortalPassword | undefined> {
    return decode<PortalPassword>(await this.kv.get(keys.portalPassword(m, email)));
  }

  async getLoginFailures(scope: ThrottleScope, id: string): Promise<LoginFailures | undefined> {
    return decode<LoginFailures>(await this.kv.get(keys.loginFailures(scope, id)));
  }

  async saveLoginFailures(
    changes: readonly { scope: ThrottleScope; id: string; next: LoginFailures | null; expected: number; ttlMs: number }[],
  ): Promise<boolean> {
    const conditions: Condition[] = [];
    const writes: Write[] = [];
    for (const { scope, id, next, expected, ttlMs } of changes) {
      const key = keys.loginFailures(scope, id);
      conditions.push({ key, version: expected });
      writes.push(next === null ? { op: 'del', key } : { op: 'put', key, data: encode(next), ttlMs });
    }
    return (await this.kv.commit(conditions, writes)).ok;
  }

  async getPortalForm(m: string, sessionId: string, nonce: string): Promise<PortalFormRecord | undefined> {
    return decode<PortalFormRecord>(await this.kv.get(keys.portalForm(m, sessionId, nonce)));
  }

  async getPortalFlash(m: string, sessionId: string): Promise<PortalFlash | undefined> {
    return decode<PortalFlash>(await this.kv.get(keys.portalFlash(m, sessionId)));
  }

  async getPayment(m: string, txn: string): Promise<Payment | undefined> {
    return decodePayment(await this.kv.get(keys.payment(m, txn)));
  }

  async getPayments(m: string, txns: readonly string[]): Promise<(Payment | undefined)[]> {
    const found = await this.kv.getMany(txns.map((t) => keys.payment(m, t)));
    return found.map(decodePayment);
  }

  async findPaymentByOrder(m: string, account: string, orderNo: string): Promise<Payment | undefined> {
    const idx = await this.kv.get(keys.order(m, account, orderNo));
    return idx ? this.getPayment(m, idx.data) : undefined;
  }

  async recentPayments(m: string, account: string, from: number, to: number, limit: number): Promise<string[]> {
    // the same per-account index as the portal's search (one sorted set, written with the payment)
    return (await this.paymentsByTime(m, account, from, to, limit)).map((e) => e.transactionId);
  }

  async getCard(m: string, token: string): Promise<VaultRecord | undefined> {
    const v = await this.kv.get(keys.card(m, token));
    return v ? (JSON.parse(v.data) as VaultRecord) : undefined;
  }

  async savedCardsOf(scope: ShopperScope, limit: number): Promise<SavedCard[]> {
    const m = scope.merchantId;
    const shopper = this.shopperName(scope);
    const ids = await this.kv.range(keys.savedCards(m, scope.accountId, shopper), -Infinity, Infinity, limit, true);
    const found = await this.kv.getMany(ids.map((h) => keys.savedCard(m, scope.accountId, shopper, h.member)));
    return found.flatMap((v) => decode<SavedCard>(v) ?? []);
  }

  async getSavedCard(scope: ShopperScope, cardId: string): Promise<SavedCard | undefined> {
    return decode<SavedCard>(await this.kv.get(keys.savedCard(scope.merchantId, scope.accountId, this.shopperName(scope), cardId)));
  }

  async getContract(m: string, id: string): Promise<Contract | undefined> {
    return decode<Contract>(await this.kv.get(keys.contract(m, id)));
  }

  async getCheckoutSession(m: string, sessionId: string): Promise<CheckoutSession | undefined> {
    return decode<CheckoutSession>(await this.kv.get(keys.checkout(m, sessionId)));
  }

  async checkoutOfOrder(m: string, account: string, orderNo: string): Promise<{ sessionId: string; version: number } | undefined> {
    const v = await this.kv.get(keys.checkoutOrder(m, account, orderNo));
    return v && { sessionId: v.data, version: v.version };
  }

  async getOutbox(m: string, id: string): Promise<OutboxRecord | undefined> {
    return decode<OutboxRecord>(await this.kv.get(keys.outbox(m, id)));
  }

  async outboxOfOrder(m: string, account: string, orderNo: string, limit: number): Promise<OutboxRecord[]> {
    const ids = await this.kv.range(keys.orderOutbox(m, account, orderNo), -Infinity, Infinity, limit, true);
    const found = await this.kv.getMany(ids.map((h) => keys.outbox(m, h.member)));
    return found.flatMap((v) => decode<OutboxRecord>(v) ?? []);
  }

  async overdueOutbox(m: string, from: number, before: number, limit: number, clock?: string): Promise<{ notifyId: string; at: number }[]> {
    const key = clock === undefined ? keys.outboxPending(m) : keys.clockDue(m, clock, 'outbox-pending');
    const hits = await this.kv.range(key, from, before, limit);
    return hits.map((h) => ({ notifyId: h.member, at: h.score }));
  }

  async getPayout(m: string, txn: string): Promise<Payout | undefined> {
    return decode<Payout>(await this.kv.get(keys.payout(m, txn)));
  }

  async findPayoutByRequest(m: string, account: string, requestId: string): Promise<Payout | undefined> {
    const idx = await this.kv.get(keys.payoutRequest(m, account, requestId));
    return idx ? this.getPayout(m, idx.data) : undefined;
  }

  async getBalance(m: string, account: string, currency: string): Promise<DepositBalance | undefined> {
    return decode<DepositBalance>(await this.kv.get(keys.balance(m, account, currency)));
  }

  async due(m: string, queue: DueQueue, upTo: number, limit: number, clock?: string): Promise<{ member: string; at: number }[]> {
    const hits = await this.kv.range(clock === undefined ? keys.due(m, queue) : keys.clockDue(m, clock, queue), -Infinity, upTo, limit);
    return hits.map((h) => ({ member: h.member, at: h.score }));
  }

  async refundsByDate(m: string, account: string, from: number, to: number, limit: number): Promise<RefundIndexEntry[]> {
    const hits = await this.kv.range(keys.refundsByDate(m, account), from, to, limit, true);
    return hits.map((h) => {
      const [refundReferenceId, transactionId] = h.member.split('\u0000') as [string, string];
      return { refundReferenceId, transactionId, at: h.score };
    });
  }

  async findRefund(m: string, account: string, refundReferenceId: string): Promise<string | undefined> {
    return (await this.kv.get(keys.refund(m, account, refundReferenceId)))?.data;
  }

  async getIdempotency(m: string, account: string, key: string): Promise<IdempotencyRecord | undefined> {
    const found = decode<IdempotencyRecord>(await this.kv.get(this.idempotencyKey(m, account, key)));
    if (found) return found;
    // kept before key names were hashed: it answers as a record not yet written under the hashed name
    // (version 0), so a repeat is replayed or refused as before, and a takeover writes the hashed name
    const former = decode<IdempotencyRecord>(await this.kv.get(keys.formerIdempotency(m, account, key)));
    return former && { ...former, version: 0 };
  }

  async countCall(m: string, account: string, windowMs: number, windowStart: number): Promise<number> {
    return this.kv.countInWindow(keys.calls(m, account, windowStart), windowMs * 2);
  }

  async countCheckout(m: string, account: string, windowMs: number, windowStart: number): Promise<number> {
    return this.kv.countInWindow(keys.checkoutCalls(m, account, windowStart), windowMs * 2);
  }

  async acceptOnce(m: string, account: string, mac: string, ttlMs: number): Promise<boolean> {
    const key = keys.usedSignature(m, account, mac);
    return (await this.kv.commit([{ key, version: 0 }], [{ op: 'put', key, data: '1', ttlMs }])).ok;
  }

  async countAuthFailure(ip: string, windowMs: number, windowStart: number): Promise<number> {
    return this.kv.countInWindow(keys.authFailures(ip, windowStart), windowMs * 2);
  }

  async blockAuth(ip: string, ttlMs: number): Promise<void> {
    await this.kv.commit([], [{ op: 'put', key: keys.authBlocked(ip), data: '1', ttlMs }]);
  }

  async authBlocked(ip: string): Promise<boolean> {
    return (await this.kv.get(keys.authBlocked(ip))) !== undefined;
  }

  dueCount(m: string, queue: DueQueue): Promise<number> {
    return this.kv.count(keys.due(m, queue));
  }

  async authorisationCounts(m: string, account: string): Promise<Map<string, { tried: number; approved: number }>> {
    return rollUpApprovals(await this.kv.counters(keys.approvals(m, account)));
  }

  /** each merchant's ledger (ledgerOf), made once */
  private readonly ledgers = new Map<string, AcquirerLedger>();

  ledgerOf(m: string): AcquirerLedger {
    let ledger = this.ledgers.get(m);
    if (!ledger) {
      const kv = this.kv;
      ledger = {
        // a record an earlier version kept under the reference alone answers as the first (putOnce's formerKey)
        ledgerRecord: (reference, data) => kv.putOnce(keys.acquirerOf(m, reference), data, keys.acquirer(reference)),
        ledgerLookup: (reference) => kv.getOnce(keys.acquirerOf(m, reference), keys.acquirer(reference)),
      };
      this.ledgers.set(m, ledger);
    }
    return ledger;
  }

  async ledgerRecord(reference: string, data: string): Promise<string> {
    // one small write-once step, also when an earlier record answers (no second round trip)
    return this.kv.putOnce(keys.acquirer(reference), data);
  }

  async ledgerLookup(reference: string): Promise<string | undefined> {
    return this.kv.getOnce(keys.acquirer(reference));
  }

  private merchantRegistry: MerchantStore | undefined;

  registry(): MerchantStore {
    return (this.merchantRegistry ??= new KvMerchantStore(this.kv));
  }

  ping(): Promise<void> {
    return this.kv.ping();
  }

  close(): Promise<void> {
    return this.kv.close();
  }
}
