// The records of reconciliation: a leaf file that imports only kernel/, so that ports/store.ts can name them
// without an import circle (docs/architecture.md).
import type { Minor } from '../kernel/money.js';

/**
 * What differs between the acquirer's books and the gateway's record of one payment, where no transition of
 * the gateway explains it (docs/operations.md, "Reconciliation"):
 * - `authorisation`: the acquirer holds an authorisation (approved, not released, not captured) the gateway
 *   does not (the payment declined, cancelled or rejected), or the other way round, or for another amount;
 * - `capture`: the amount captured differs;
 * - `refunds`: the amount refunded differs (a refund at the acquirer the gateway never recorded, one recorded
 *   here the acquirer does not have, or for another amount or outcome);
 * - `dispute`: the amount the acquirer's disputes took differs from what the gateway's disputes record (a
 *   dispute move the gateway's transition table refuses).
 */
export const DISCREPANCY_KINDS = ['authorisation', 'capture', 'refunds', 'dispute'] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

/**
 * A discrepancy found by reconciliation, kept once per (payment, kind): a later pass that finds the same
 * difference writes nothing (the record is created with the version 0 condition).
 */
export interface DiscrepancyRecord {
  /** the store's optimistic-lock counter */
  version: number;
  merchant_id: string;
  account_id: string;
  transaction_id: string;
  kind: DiscrepancyKind;
  /** the connector whose books differ (its code) */
  connector: string;
  /** when reconciliation first found it (the payment's clock's time for a test clock's payment) */
  found_at: number;
  currency: string;
  /** the amount the acquirer's books hold for this kind (hundredths, as every amount inside the gateway) */
  acquirer_amount: Minor;
  /** the amount the gateway records for it */
  gateway_amount: Minor;
  /** the references concerned: the gateway's (`<transaction_id>-NN`) and the acquirer's own, for the operator */
  references: string[];
}

/** The indexes a pass walks, in this order: payments made in the window, then refunds and disputes of it. */
export const PASS_PHASES = ['payments', 'refunds', 'disputes', 'done'] as const;
export type PassPhase = (typeof PASS_PHASES)[number];

/**
 * Where reconciliation of one account stands (shared by every gateway process through the store): the pass
 * under way over the account's payments with activity in the window, walked newest first index by index, and
 * the process that holds it while it runs a step (a versioned write takes it: one process at a time).
 */
export interface ReconcilePass {
  version: number;
  merchant_id: string;
  account_id: string;
  /** when the pass began: its window is the RECONCILE_DAYS before it */
  started_at: number;
  /** from when the pass looks (started_at less the window) */
  window_from: number;
  phase: PassPhase;
  /** the last index entry done in this phase (its score and member); absent at the phase's start */
  cursor?: { at: number; member: string };
  /** a step is running until then (a process that dies leaves it to another after it) */
  lease_until?: number;
  /** payments compared with the acquirer's books in this pass, catch-ups made and discrepancies found */
  compared: number;
  caught_up: number;
  discrepancies: number;
  finished_at?: number;
}
