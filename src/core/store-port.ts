import type { Payment } from './payment.js';
import type { Contract, OutboxRecord, VaultRecord } from './records.js';
import type { CheckoutSession } from './checkout/session.js';

/** Queues of work due at a time, per merchant: the sweeps and schedulers read them. */
export type DueQueue = 'auth_expiry' | 'contract_charge' | 'outbox';

/** Everything one atomic step writes. All records belong to one merchant (one Redis Cluster slot). */
export interface ChangeSet {
  merchantId: string;
  /** expected: the version read (0 to create; creating a payment also claims its order_no) */
  payments?: { next: Payment; expected: number }[];
  cards?: VaultRecord[];
  /** vault tokens to delete (a card kept for a payment that then failed) */
  dropCards?: string[];
  contracts?: { next: Contract; expected: number }[];
  /** new notifications, or claimed/updated ones with the version read */
  outbox?: { next: OutboxRecord; expected: number }[];
  /** hosted checkout sessions; ttlMs: how long the store keeps the record */
  checkoutSessions?: { next: CheckoutSession; expected: number; ttlMs: number }[];
  /** add (at = time) or remove (at = null) a member of a due queue */
  due?: { queue: DueQueue; member: string; at: number | null }[];
}

/** The gateway's persistence, in the gateway's terms; a Redis and an in-memory implementation. */
export interface GatewayStore {
  /** Applies the change set atomically; false when a record moved since it was read (or an order_no was taken). */
  commit(change: ChangeSet): Promise<boolean>;
  getPayment(merchantId: string, transactionId: string): Promise<Payment | undefined>;
  getPayments(merchantId: string, transactionIds: readonly string[]): Promise<(Payment | undefined)[]>;
  findPaymentByOrder(merchantId: string, accountId: string, orderNo: string): Promise<Payment | undefined>;
  getCard(merchantId: string, token: string): Promise<VaultRecord | undefined>;
  getContract(merchantId: string, recurringId: string): Promise<Contract | undefined>;
  getCheckoutSession(merchantId: string, sessionId: string): Promise<CheckoutSession | undefined>;
  getOutbox(merchantId: string, notifyId: string): Promise<OutboxRecord | undefined>;
  /** Members of a due queue due at or before `upTo`, earliest first. */
  due(merchantId: string, queue: DueQueue, upTo: number, limit: number): Promise<{ member: string; at: number }[]>;
  /** Counts a call against a window (rate limits); returns the count so far in this window. */
  countCall(merchantId: string, accountId: string, windowMs: number, windowStart: number): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
