/**
 * What an acquirer's own records say it did for one gateway payment (its authorisations under the payment's
 * references, captures, refunds and disputes), in the acquirer's minor units: the truth the simulation's money
 * invariants compare the gateway with (never the connector's `status`, which may not see everything).
 */
export interface AcquirerBook {
  /** the acquirer's objects (intents, PSP payments) made under each authorisation reference of the payment */
  objects: Record<string, number>;
  /** the amount of the authorisation it approved (the last approved, where several attempts were) */
  authorised?: number;
  /** that authorisation still stands: not voided, not refused later */
  held: boolean;
  /** what it captured, less a capture it failed later */
  captured: number;
  /** the captures it made (one failed later included) */
  captures: number;
  /** every refund it took, by the gateway's reference; `failed`: refused (at once or later), nothing refunded */
  refunds: { reference: string; amount: number; failed: boolean }[];
  /** what its disputes took from the merchant, less what reversals gave back */
  disputed: number;
}

/** An empty book: the acquirer did nothing for the payment. */
export function emptyBook(): AcquirerBook {
  return { objects: {}, held: false, captured: 0, captures: 0, refunds: [], disputed: 0 };
}

/** The payment's own authorisation references: its transaction id, and a hosted checkout's later attempts (`-aN`). */
export function isAuthorisationOf(reference: string, transactionId: string): boolean {
  return reference === transactionId || new RegExp(`^${transactionId}-a\\d+$`).test(reference);
}
