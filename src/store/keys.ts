import { createHash } from 'node:crypto';
import type { DueQueue } from '../core/ports/store.js';

/**
 * Every key the gateway uses, built here only. The merchant id is the hash tag `{...}`, so all of one
 * merchant's records sit in one Redis Cluster slot and a change set can touch them atomically.
 */
export const keys = {
  payment: (m: string, txn: string) => `gw:{${m}}:pay:${txn}`,
  order: (m: string, account: string, orderNo: string) => `gw:{${m}}:order:${account}:${orderNo}`,
  card: (m: string, token: string) => `gw:{${m}}:card:${token}`,
  /** a shopper's saved card, named by account, shopper (its hash: KeyNameHash) and card_id */
  savedCard: (m: string, account: string, shopperHash: string, cardId: string) =>
    `gw:{${m}}:saved-card:${account}:${shopperHash}:${cardId}`,
  /** a shopper's card_ids of one account, scored by when each was saved */
  savedCards: (m: string, account: string, shopperHash: string) => `gw:{${m}}:saved-cards:${account}:${shopperHash}`,
  contract: (m: string, id: string) => `gw:{${m}}:contract:${id}`,
  outbox: (m: string, id: string) => `gw:{${m}}:outbox:${id}`,
  /** notify_ids of one order (scored by creation time), for resend by order_no */
  orderOutbox: (m: string, account: string, orderNo: string) => `gw:{${m}}:order-outbox:${account}:${orderNo}`,
  /**
   * pending notify_ids by due time: the outbox queue's shadow, written only in the records' own versioned
   * commits (never by a job's clean-up), so the re-queue sweep finds a pending notification the queue lost
   */
  outboxPending: (m: string) => `gw:{${m}}:outbox-pending`,
  checkout: (m: string, sessionId: string) => `gw:{${m}}:checkout:${sessionId}`,
  due: (m: string, queue: DueQueue) => `gw:{${m}}:due:${queue}`,
  /** a test clock's own due queue (and `outbox-pending` index): no live job reads it (docs/test-clocks.md) */
  clockDue: (m: string, clock: string, queue: DueQueue | 'outbox-pending') => `gw:{${m}}:clock:${clock}:due:${queue}`,
  testClock: (m: string, clock: string) => `gw:{${m}}:clock:${clock}`,
  /** the merchant's test clock ids, scored by creation (real time) */
  testClocks: (m: string) => `gw:{${m}}:clocks`,
  /** what a test clock's changes created: `pay:<transaction_id>`, `contract:<recurring_id>`, `outbox:<notify_id>` */
  clockObjects: (m: string, clock: string) => `gw:{${m}}:clock:${clock}:objects`,
  refundsByDate: (m: string, account: string) => `gw:{${m}}:refunds:${account}`,
  refund: (m: string, account: string, refundReferenceId: string) => `gw:{${m}}:refund:${account}:${refundReferenceId}`,
  /** an Idempotency-Key's record, named by the key's hash (KeyNameHash): never the key as sent */
  idempotency: (m: string, account: string, keyHash: string) => `gw:{${m}}:idem-key:${account}:${keyHash}`,
  /** where a key's record was kept before key names were hashed: read, never written (records live 24 hours) */
  formerIdempotency: (m: string, account: string, key: string) => `gw:{${m}}:idem:${account}:${key}`,
  payout: (m: string, txn: string) => `gw:{${m}}:payout:${txn}`,
  /** a UUID names one payout whatever its letter case */
  payoutRequest: (m: string, account: string, requestId: string) => `gw:{${m}}:payoutreq:${account}:${requestId.toLowerCase()}`,
  balance: (m: string, account: string, currency: string) => `gw:{${m}}:balance:${account}:${currency}`,
  calls: (m: string, account: string, windowStart: number) => `gw:{${m}}:calls:${account}:${windowStart}`,
  /** /v1/checkout calls of one account in one window (its own limit, docs/security.md) */
  checkoutCalls: (m: string, account: string, windowStart: number) => `gw:{${m}}:checkout-calls:${account}:${windowStart}`,
  /** the one open checkout session of an order */
  checkoutOrder: (m: string, account: string, orderNo: string) => `gw:{${m}}:checkout-order:${account}:${orderNo}`,
  /** a strict request signature already accepted (each is accepted once) */
  usedSignature: (m: string, account: string, mac: string) => `gw:{${m}}:sig:${account}:${mac}`,
  /** failed authentications of one client address; not a merchant's key (the caller is not known) */
  authFailures: (ip: string, windowStart: number) => `gw:{auth}:fail:${ip}:${windowStart}`,
  authBlocked: (ip: string) => `gw:{auth}:blocked:${ip}`,
  /** authorisation counters of an account: fields `<method>|<brand>|<country>:tried` and `...:approved` */
  approvals: (m: string, account: string) => `gw:{${m}}:approvals:${account}`,
  /** the portal home's counters of one day (YYYYMMDD in GATEWAY_TIMEZONE): fields `<account>|<currency>|<figure>` */
  homeDay: (m: string, day: string) => `gw:{${m}}:home-day:${day}`,
  /** an account's transaction ids scored by creation time (portal search, newest payments) */
  paymentsByTime: (m: string, account: string) => `gw:{${m}}:pay-by-time:${account}`,
  dispute: (m: string, id: string) => `gw:{${m}}:dispute:${id}`,
  /** an account's dispute ids scored by opening time (the dispute search) */
  disputesByTime: (m: string, account: string) => `gw:{${m}}:disputes:${account}`,
  /** an account's open dispute ids scored by due date (the portal's list) */
  openDisputes: (m: string, account: string) => `gw:{${m}}:disputes-open:${account}`,
  /** what reconciliation found differing for a payment, one key per kind (reconcile-records.ts) */
  discrepancy: (m: string, txn: string, kind: string) => `gw:{${m}}:discrepancy:${txn}:${kind}`,
  /** an account's reconciliation pass: where it stands and who runs it */
  reconcilePass: (m: string, account: string) => `gw:{${m}}:reconcile-pass:${account}`,
  portalSession: (m: string, id: string) => `gw:{${m}}:portal-session:${id}`,
  /** portal actions (JSON members scored by time): per subject, and the merchant's all together */
  audit: (m: string, subject: string | undefined) => (subject === undefined ? `gw:{${m}}:audit` : `gw:{${m}}:audit:${subject}`),
  portalPassword: (m: string, email: string) => `gw:{${m}}:portal-password:${email}`,
  /** a portal form's one-time token (its nonce) and what it did, per session */
  portalForm: (m: string, sessionId: string, nonce: string) => `gw:{${m}}:portal-form:${sessionId}:${nonce}`,
  portalFlash: (m: string, sessionId: string) => `gw:{${m}}:portal-flash:${sessionId}`,
  /** failed sign-ins: not a merchant's (unknown e-mails count), so their own slot; the id hashed (no raw e-mail or IP in key names) */
  loginFailures: (scope: string, id: string) => `gw:{portal}:login-fail:${scope}:${createHash('sha256').update(id).digest('hex')}`,
  /** the operators' registry (docs/operators.md): one slot, so a change and its audit record are one step */
  registryVersion: () => 'gw:{operators}:version',
  merchantRecord: (m: string) => `gw:{operators}:merchant:${m}`,
  /** merchant ids scored by creation time */
  merchantIndex: () => 'gw:{operators}:merchants',
  /** the operators' audit (JSON members scored by time): every merchant's, and one merchant's */
  operatorAudit: (m: string | undefined) => (m === undefined ? 'gw:{operators}:audit' : `gw:{operators}:audit:${m}`),
  /** the channel a change is announced on */
  registryChannel: () => 'gw:operators:changed',
  /**
   * the sandbox acquirer's ledger: one key per acquirer reference, in the slot of the merchant whose payment it
   * is (one payment, one slot: they fail over together)
   */
  acquirerOf: (m: string, reference: string) => `acq:{${m}}:${reference}`,
  /** the ledger's key before it took the merchant's slot (read when the new key holds nothing), and a ledger without a merchant */
  acquirer: (reference: string) => `acq:{${reference}}`,
};
