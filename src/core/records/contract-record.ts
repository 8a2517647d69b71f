// A contract's record: a leaf file (imports only kernel/), so that ports/store.ts can name it without a circle.
import type { Minor } from '../kernel/money.js';

export interface SubscriptionTerms {
  contract: string;
  contract_name: string;
  contract_amount: number;
  interval: ContractInterval;
  interval_count: number;
  billing_cycle: number;
  promotion_cycle: number;
  contract_start: string;
  contract_end: string;
  price_id: string;
}

export type ContractStatus = 'Active' | 'Inactived' | 'Suspended' | 'Completed';
export type ContractInterval = 'day' | 'week' | 'month' | 'year';

/** A scheduled charge: payment `transaction_id` for period `number`, attempt `attempt` (0 = first try). */
export interface ContractCharge {
  transaction_id: string;
  number: number;
  attempt: number;
  due_at: number;
}

/**
 * A recurring contract created by a payment's subscription block: the block's terms (contract_amount, in
 * minor units, is the amount of the charges after the promotion) plus the schedule's state.
 */
export interface Contract extends SubscriptionTerms {
  version: number;
  recurring_id: string;
  merchant_id: string;
  account_id: string;
  currency: string;
  /** amount of the first promotion_cycle charges (the payment's amount) */
  promotion_amount: Minor;
  vault_token: string;
  status: ContractStatus;
  /** charges made so far, the first payment included */
  charges_made: number;
  /** when the next charge is due (epoch ms); null when none is left */
  next_charge_at: number | null;
  /** failed charges of the current period (retried on the schedule of docs/subscriptions.md, then Suspended) */
  failed_attempts: number;
  /** the charge created ahead of its due time for the current period (a pending recurring payment) */
  pending_charge?: ContractCharge;
  /** while one process executes the pending charge */
  charge_lease_until?: number;
  cancelled_at?: number;
  origin_transaction_id: string;
  order_no: string;
  notify_url: string;
  created_at: number;
  updated_at: number;
}
