import type { MerchantRecord, OperatorAuditRecord } from '../records/merchant-record.js';

/**
 * Where merchants and their accounts live (docs/operators.md): one record per merchant, a registry version
 * that every change moves on, and the operators' audit. Each change is one atomic step with its audit record.
 */
export interface MerchantStore {
  /** the registry's version: 0 while it holds nothing; each change adds one */
  version(): Promise<number>;
  /** every merchant, with the version they were read at (one consistent step) */
  all(): Promise<{ version: number; merchants: MerchantRecord[] }>;
  get(merchantId: string): Promise<MerchantRecord | undefined>;
  /**
   * Writes the merchant (expected: the version read, 0 to create) and its audit record in one step, and moves
   * the registry's version on; false when the merchant moved since it was read (or exists, for 0).
   */
  save(next: MerchantRecord, expected: number, audit: OperatorAuditRecord): Promise<boolean>;
  /** audit records, newest first (one merchant's, or every merchant's), at most limit */
  audit(merchantId: string | undefined, limit: number): Promise<OperatorAuditRecord[]>;
  /**
   * Calls `changed` soon after any process saves a change, where the store can tell (Redis pub/sub); answers
   * how to stop listening. Processes also check the version on a timer, so a lost message is only late.
   */
  watch(changed: () => void): () => void;
}
