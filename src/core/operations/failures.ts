/**
 * The catalogue of per-order outcomes of the batch calls (docs/error-codes.md lists the same). On the wire:
 * `error_message` (capture, review, cancel) and `refund_message` (refund) are `<code>:<text>`; success is
 * `V0000:Success` in refund_message and an empty error_message elsewhere.
 */
export const ORDER_OUTCOME = {
  SUCCESS: ['V0000', 'Success'],
  NOT_FOUND: ['V1001', 'Transaction not found'],
  ORDER_NO_MISMATCH: ['V1002', 'order_no does not match the transaction'],
  CURRENCY_MISMATCH: ['V1003', 'currency does not match the transaction'],
  AMOUNT_MISMATCH: ['V1004', 'amount does not match the transaction'],
  ALREADY_CAPTURED: ['V2001', 'Transaction has already been captured'],
  CANCELLED: ['V2002', 'Transaction has been cancelled'],
  EXPIRED: ['V2003', 'Authorisation has expired'],
  NOT_APPROVED: ['V2004', 'Transaction was not approved'],
  IN_PROCESS: ['V2005', 'Transaction is still being processed'],
  HELD_FOR_REVIEW: ['V2006', 'Transaction is held for review; review it first'],
  NOT_HELD: ['V2007', 'Transaction is not held for review'],
  NOT_CAPTURED: ['V2008', 'Transaction has not been captured'],
  FULLY_REFUNDED: ['V2009', 'Transaction has been refunded in full'],
  CAPTURED_NOT_CANCELLABLE: ['V2010', 'Transaction has been captured; refund it instead'],
  /** the text is followed by the open dispute's dispute_id (the failure's detail) */
  DISPUTED: ['V2011', 'Transaction has an open dispute; no refund until it is closed'],
  CAPTURE_EXCEEDS_AUTHORISED: ['V3001', 'Capture amount exceeds the authorised amount'],
  REFUND_EXCEEDS_CAPTURED: ['V3002', 'Refund amount exceeds the amount left to refund'],
  ZERO_AMOUNT: ['V3003', 'Amount must be greater than zero'],
  TOO_MANY_REFUNDS: ['V3004', 'Transaction has reached 99 refunds'],
  /** the text is followed by the earlier refund's refund_reference_id (the failure's detail) */
  DUPLICATE_REFUND: ['V3005', 'Identical to a recent refund'],
  /** the text is followed by the lost dispute's dispute_id (the failure's detail) */
  LOST_TO_DISPUTE: ['V3006', 'Refund amount exceeds what is left after a lost dispute'],
  CONNECTOR_FAILED: ['V4001', 'Processing error at the connector; nothing was changed'],
  BUSY: ['V5001', 'Transaction is busy with another operation; try again'],
  RECORDING: ['V5002', 'Sent to the acquirer; the outcome is being recorded and will be notified'],
  STORE_UNAVAILABLE: ['V5003', 'The store did not answer; nothing was changed for this order; try again'],
} as const satisfies Record<string, readonly [string, string]>;

export type OrderOutcome = keyof typeof ORDER_OUTCOME;

/** `<code>:<text>`, and `: <detail>` when the failure names something (the refund a duplicate repeats). */
export function outcomeText(key: OrderOutcome, detail?: string): string {
  const [code, text] = ORDER_OUTCOME[key];
  return detail ? `${code}:${text}: ${detail}` : `${code}:${text}`;
}
