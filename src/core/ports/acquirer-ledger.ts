/**
 * Where the sandbox acquirer keeps what it did, by reference (the gateway's store, so the record survives a
 * restart and every gateway process sees the same acquirer). A real connector asks its acquirer instead.
 */
export interface AcquirerLedger {
  /** Records `data` under `reference` unless something is there already; answers what is kept (the first). */
  ledgerRecord(reference: string, data: string): Promise<string>;
  ledgerLookup(reference: string): Promise<string | undefined>;
  /**
   * The ledger of one merchant's payments: its records share the merchant's hash tag with the payments (one
   * Redis Cluster slot), so a payment and the acquirer's record of it fail over together, and travel in the
   * same commit script, confirmed with it.
   */
  ledgerOf?(merchantId: string): AcquirerLedger;
}
