import type { MerchantStore } from '../core/ports/merchant-store.js';
import type { MerchantRecord, OperatorAuditRecord } from '../core/records/merchant-record.js';
import type { KvStore } from './kv.js';
import { keys } from './keys.js';

/** Attempts a save makes when other merchants' changes move the registry's version under it. */
const SAVE_ROUNDS = 20;

/** The merchant registry on the key-value store: every key in one slot (`{operators}`), so each change is one commit. */
export class KvMerchantStore implements MerchantStore {
  constructor(private readonly kv: KvStore) {}

  async version(): Promise<number> {
    return (await this.kv.get(keys.registryVersion()))?.version ?? 0;
  }

  async all(): Promise<{ version: number; merchants: MerchantRecord[] }> {
    for (;;) {
      const version = await this.version();
      const ids = await this.kv.range(keys.merchantIndex(), -Infinity, Infinity, 1_000_000);
      const records = await this.kv.getMany(ids.map((e) => keys.merchantRecord(e.member)));
      // read again: a change between the reads is read whole on the next round
      if ((await this.version()) !== version) continue;
      const merchants: MerchantRecord[] = [];
      for (const r of records) if (r) merchants.push({ ...(JSON.parse(r.data) as MerchantRecord), version: r.version });
      return { version, merchants };
    }
  }

  async get(merchantId: string): Promise<MerchantRecord | undefined> {
    const r = await this.kv.get(keys.merchantRecord(merchantId));
    return r ? { ...(JSON.parse(r.data) as MerchantRecord), version: r.version } : undefined;
  }

  async save(next: MerchantRecord, expected: number, audit: OperatorAuditRecord): Promise<boolean> {
    const { version: _v, ...data } = next;
    const entry = JSON.stringify(audit);
    for (let round = 0; round < SAVE_ROUNDS; round++) {
      const registry = await this.version();
      const result = await this.kv.commit(
        [
          { key: keys.registryVersion(), version: registry },
          { key: keys.merchantRecord(next.merchant_id), version: expected },
        ],
        [
          { op: 'put', key: keys.merchantRecord(next.merchant_id), data: JSON.stringify(data) },
          { op: 'put', key: keys.registryVersion(), data: String(audit.at) },
          { op: 'zadd', key: keys.merchantIndex(), score: next.created_at, member: next.merchant_id },
          // scored by the registry's version this change makes: in order of the changes, whatever the clocks say
          { op: 'zadd', key: keys.operatorAudit(undefined), score: registry + 1, member: entry },
          { op: 'zadd', key: keys.operatorAudit(next.merchant_id), score: registry + 1, member: entry },
        ],
      );
      if (result.ok) {
        await this.kv.publish?.(keys.registryChannel(), String(registry + 1)).catch(() => undefined);
        return true;
      }
      // another merchant's change moved the registry on: read its version again; this merchant moved: refused
      if (result.conflict !== keys.registryVersion()) return false;
    }
    return false;
  }

  async audit(merchantId: string | undefined, limit: number): Promise<OperatorAuditRecord[]> {
    const entries = await this.kv.range(keys.operatorAudit(merchantId), -Infinity, Infinity, limit, true);
    return entries.map((e) => JSON.parse(e.member) as OperatorAuditRecord);
  }

  watch(changed: () => void): () => void {
    return this.kv.subscribe?.(keys.registryChannel(), () => changed()) ?? (() => undefined);
  }
}
