import type { AcquirerLedger } from './acquirer-ledger.js';
import type { Payment } from '../records/payment.js';
import type { Contract } from '../records/contract-record.js';
import type { IdempotencyRecord } from '../records/idempotency-record.js';
import type { OutboxRecord } from '../records/outbox-record.js';
import type { VaultRecord } from '../records/vault.js';
import type { DepositBalance, Payout } from '../records/payout.js';
import type { CheckoutSession } from '../records/session.js';
import type { AuditRecord, LoginFailures, PortalPassword, PortalSession, ThrottleScope } from '../records/portal-records.js';
import type { PortalFlash, PortalFormRecord } from '../records/form-records.js';
import type { TestClock } from '../records/clock-record.js';
import type { SavedCard, ShopperScope } from '../records/saved-card-record.js';
import type { DisputeRecord } from '../records/dispute-record.js';
import type { DiscrepancyRecord, ReconcilePass } from '../records/reconcile-records.js';
import type { MerchantStore } from './merchant-store.js';

/** Queues of work due at a time, per merchant: the sweeps and schedulers read them (`reconcile`: accounts, by account id). */
export type DueQueue =
  | 'auth_expiry'
  | 'contract_charge'
  | 'outbox'
  | 'payout'
  | 'threeds_challenge'
  | 'pending_resolve'
  | 'test_clock'
  | 'dispute'
  | 'reconcile';

/** Everything one atomic step writes. All records belong to one merchant (one Redis Cluster slot). */
export interface ChangeSet {
  merchantId: string;
  /**
   * the test clock whose objects this change writes (docs/test-clocks.md): its due entries, and its notifications' queue
   * and index, are the clock's own (no live job reads them), and the records it creates are listed under the clock
   */
  clock?: string;
  /** expected: the version read (0 to create; creating a payment also claims its order_no and indexes it by time) */
  payments?: { next: Payment; expected: number }[];
  cards?: VaultRecord[];
  /** vault tokens to delete (a card kept for a payment that then failed) */
  dropCards?: string[];
  /** shoppers' saved cards to create (indexed per account and shopper by creation time) */
  savedCards?: SavedCard[];
  /** saved cards to remove with their index entry, each only while still at the version read */
  dropSavedCards?: { scope: ShopperScope; cardId: string; expected: number }[];
  contracts?: { next: Contract; expected: number }[];
  /** new notifications, or claimed/updated ones with the version read */
  outbox?: { next: OutboxRecord; expected: number }[];
  /** notifications that must still be at the version read (0: none), written nothing: e.g. to drop a spent queue entry */
  outboxUnchanged?: { notifyId: string; version: number }[];
  /** hosted checkout sessions; ttlMs: how long the store keeps the record */
  checkoutSessions?: { next: CheckoutSession; expected: number; ttlMs: number }[];
  /** the one open checkout session of an order: its id, with the version read (0 to create) */
  checkoutOrders?: { accountId: string; orderNo: string; sessionId: string; expected: number; ttlMs: number }[];
  /** orders (each form of an order_no listed) that must have neither a payment nor a checkout session: else the commit fails */
  unusedOrders?: { accountId: string; orderNo: string }[];
  /** add (at = time) or remove (at = null) a member of a due queue */
  due?: { queue: DueQueue; member: string; at: number | null }[];
  /**
   * records of the sandbox acquirer's ledger (AcquirerLedger, in the merchant's slot) made in this step: an
   * authorisation the sandbox decided without writing (CardConnector.authoriseInCommit) is recorded at the
   * acquirer and at the gateway together. One already there under the reference fails the whole commit.
   */
  acquirerRecords?: { reference: string; data: string }[];
  /** approval counters of an account (what /v1/optimise reads), counted in the same step as the outcome */
  counters?: { accountId: string; fields: readonly string[] }[];
  /** accepted refunds, indexed per account by refund date and by refund_reference_id */
  refunds?: { accountId: string; refundReferenceId: string; transactionId: string; at: number }[];
  /** an Idempotency-Key's record (next null removes it), with the version read and its time to live */
  idempotency?: { accountId: string; key: string; next: IdempotencyRecord | null; expected: number; ttlMs: number }[];
  /** expected: the version read (0 to create; creating a payout also claims its request_id) */
  payouts?: { next: Payout; expected: number }[];
  /** deposit balances with the version read (0 to create from the opening balance) */
  balances?: { next: DepositBalance; expected: number }[];
  /** disputes, with the version read (0 to create: also indexed per account by opening time); open ones indexed by due date */
  disputes?: { next: DisputeRecord; expected: number }[];
  /** test clocks, with the version read (0 to create) */
  testClocks?: { next: TestClock; expected: number }[];
  /** reconciliation's discrepancies, one per (payment, kind): created with expected 0, so one found again writes nothing */
  discrepancies?: { next: DiscrepancyRecord; expected: number }[];
  /** an account's reconciliation pass, with the version read (0 to create) */
  reconcilePasses?: { next: ReconcilePass; expected: number }[];
  /** portal sessions by id (next null ends it; expected -1: whatever its version) */
  portalSessions?: { id: string; next: PortalSession | null; expected: number; ttlMs: number }[];
  /** portal actions, indexed by their subject and per merchant */
  audit?: AuditRecord[];
  /** a portal user's own password, replacing the merchants file's hash */
  portalPasswords?: { next: PortalPassword; expected: number }[];
  /** what a portal form's one-time token did, by session and token nonce (expected 0: claim it) */
  portalForms?: { sessionId: string; nonce: string; next: PortalFormRecord; expected: number; ttlMs: number }[];
  /** a portal session's notice for the page it goes to next (next null: shown; expected -1: whatever its version) */
  portalFlash?: { sessionId: string; next: PortalFlash | null; expected: number; ttlMs: number }[];
}

/** One entry of an account's payments by creation time. */
export interface PaymentIndexEntry {
  transactionId: string;
  at: number;
}

/** One entry of the per-account refund index. */
export interface RefundIndexEntry {
  refundReferenceId: string;
  transactionId: string;
  at: number;
}

/** The gateway's persistence, in the gateway's terms; a Redis and an in-memory implementation. */
export interface GatewayStore extends AcquirerLedger {
  /** Applies the change set atomically; false when a record moved since it was read (or an order_no was taken). */
  commit(change: ChangeSet): Promise<boolean>;
  getPayment(merchantId: string, transactionId: string): Promise<Payment | undefined>;
  getPayments(merchantId: string, transactionIds: readonly string[]): Promise<(Payment | undefined)[]>;
  findPaymentByOrder(merchantId: string, accountId: string, orderNo: string): Promise<Payment | undefined>;
  /** Transaction ids of an account's payments created from..to (inclusive), newest first, at most limit. */
  recentPayments(merchantId: string, accountId: string, from: number, to: number, limit: number): Promise<string[]>;
  getCard(merchantId: string, token: string): Promise<VaultRecord | undefined>;
  /** One shopper's saved cards of one account, newest first, at most limit. */
  savedCardsOf(scope: ShopperScope, limit: number): Promise<SavedCard[]>;
  /** A saved card, only under the (merchant, account, shopper) it was saved for. */
  getSavedCard(scope: ShopperScope, cardId: string): Promise<SavedCard | undefined>;
  getContract(merchantId: string, recurringId: string): Promise<Contract | undefined>;
  getCheckoutSession(merchantId: string, sessionId: string): Promise<CheckoutSession | undefined>;
  getOutbox(merchantId: string, notifyId: string): Promise<OutboxRecord | undefined>;
  /** The notifications of one order, newest first. */
  outboxOfOrder(merchantId: string, accountId: string, orderNo: string, limit: number): Promise<OutboxRecord[]>;
  /** Pending notifications due (lease end or next attempt) from..before, earliest first: an index written with the records only. */
  overdueOutbox(
    merchantId: string,
    from: number,
    before: number,
    limit: number,
    clock?: string,
  ): Promise<{ notifyId: string; at: number }[]>;
  getPayout(merchantId: string, transactionId: string): Promise<Payout | undefined>;
  findPayoutByRequest(merchantId: string, accountId: string, requestId: string): Promise<Payout | undefined>;
  /** undefined until the account's first payout in that currency */
  getBalance(merchantId: string, accountId: string, currency: string): Promise<DepositBalance | undefined>;
  /** Members of a due queue due at or before `upTo`, earliest first (a test clock's own queue when `clock` is given). */
  due(merchantId: string, queue: DueQueue, upTo: number, limit: number, clock?: string): Promise<{ member: string; at: number }[]>;
  /** Refunds of an account with from <= refund date <= to, newest first, at most limit. */
  refundsByDate(merchantId: string, accountId: string, from: number, to: number, limit: number): Promise<RefundIndexEntry[]>;
  /** The transaction of a refund_reference_id of this account. */
  findRefund(merchantId: string, accountId: string, refundReferenceId: string): Promise<string | undefined>;
  getIdempotency(merchantId: string, accountId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Counts a call against a window (rate limits); returns the count so far in this window. */
  countCall(merchantId: string, accountId: string, windowMs: number, windowStart: number): Promise<number>;
  /** The open checkout session of an order, as indexed when it was opened. */
  checkoutOfOrder(merchantId: string, accountId: string, orderNo: string): Promise<{ sessionId: string; version: number } | undefined>;
  /** Counts a /v1/checkout call against the account's checkout window; returns the count so far. */
  countCheckout(merchantId: string, accountId: string, windowMs: number, windowStart: number): Promise<number>;
  /** Records a strict request signature; false when it was already accepted within ttlMs (a replay). */
  acceptOnce(merchantId: string, accountId: string, mac: string, ttlMs: number): Promise<boolean>;
  /** Counts a failed authentication from a client address; returns the count so far in this window. */
  countAuthFailure(ip: string, windowMs: number, windowStart: number): Promise<number>;
  /** Refuses authentications from a client address for ttlMs. */
  blockAuth(ip: string, ttlMs: number): Promise<void>;
  authBlocked(ip: string): Promise<boolean>;
  /** How many members a due queue holds (the metrics' backlog gauges read it at each scrape). */
  dueCount(merchantId: string, queue: DueQueue): Promise<number>;
  /** The account's authorisation counters by dimension key (counted by outcome commits: ChangeSet.counters). */
  authorisationCounts(merchantId: string, accountId: string): Promise<Map<string, { tried: number; approved: number }>>;
  /** The portal home's counters of each day (YYYYMMDD in GATEWAY_TIMEZONE), in order: `<account>|<currency>|<figure>` to count. */
  dayCounters(merchantId: string, days: readonly string[]): Promise<Record<string, number>[]>;
  /** Payments of an account created with from <= time <= to, newest first (ties: higher id first), at most limit. */
  paymentsByTime(merchantId: string, accountId: string, from: number, to: number, limit: number): Promise<PaymentIndexEntry[]>;
  getDispute(merchantId: string, disputeId: string): Promise<DisputeRecord | undefined>;
  getDisputes(merchantId: string, disputeIds: readonly string[]): Promise<(DisputeRecord | undefined)[]>;
  /** Dispute ids of an account opened from..to (inclusive), newest first, at most limit. */
  disputesByTime(merchantId: string, accountId: string, from: number, to: number, limit: number): Promise<string[]>;
  /** Dispute ids of an account's open disputes, earliest due_date first, at most limit. */
  openDisputes(merchantId: string, accountId: string, limit: number): Promise<string[]>;
  getPortalSession(merchantId: string, id: string): Promise<PortalSession | undefined>;
  /** Portal actions on one subject (or the merchant's, subject undefined), newest first. */
  auditOf(merchantId: string, subject: string | undefined, limit: number): Promise<AuditRecord[]>;
  getPortalPassword(merchantId: string, email: string): Promise<PortalPassword | undefined>;
  /** Failed sign-ins of an e-mail or an address (not tied to a merchant: unknown e-mails count too). */
  getLoginFailures(scope: ThrottleScope, id: string): Promise<LoginFailures | undefined>;
  /** Writes (next null: clears) the counts listed, all or none: only while each version is still `expected`. */
  saveLoginFailures(
    changes: readonly { scope: ThrottleScope; id: string; next: LoginFailures | null; expected: number; ttlMs: number }[],
  ): Promise<boolean>;
  getPortalForm(merchantId: string, sessionId: string, nonce: string): Promise<PortalFormRecord | undefined>;
  getPortalFlash(merchantId: string, sessionId: string): Promise<PortalFlash | undefined>;
  /** The discrepancies reconciliation kept for a payment (at most one per kind). */
  discrepanciesOf(merchantId: string, transactionId: string): Promise<DiscrepancyRecord[]>;
  /** The reconciliation passes of these accounts (undefined for one that has none yet). */
  getReconcilePasses(merchantId: string, accountIds: readonly string[]): Promise<(ReconcilePass | undefined)[]>;
  getTestClock(merchantId: string, testClockId: string): Promise<TestClock | undefined>;
  /** The merchant's test clocks, oldest first, at most limit. */
  testClocksOf(merchantId: string, limit: number): Promise<TestClock[]>;
  /**
   * Deletes a test clock as read (false when it moved since) with every object written in its time: payments
   * (their orders, indexes and refunds), contracts, notifications and its queues.
   */
  deleteTestClock(merchantId: string, clock: TestClock): Promise<boolean>;
  /** merchants, accounts and the operators' audit (docs/operators.md) */
  registry(): MerchantStore;
  ping(): Promise<void>;
  close(): Promise<void>;
}
