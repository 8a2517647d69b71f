import { GatewayError } from '../core/kernel/errors.js';
import type { CommitResult, Condition, KvStore, ScoredMember, Versioned, Write } from './kv.js';

/** A commit the store cannot apply: refused before any write, as the Redis adapter refuses it. */
function refused(reason: string): GatewayError {
  const e = new GatewayError('STORE_UNAVAILABLE', 'the store is not answering; try again');
  e.cause = new Error(reason);
  return e;
}

interface Entry {
  version: number;
  data: string;
  expiresAt: number;
}

/** The embedded store: one process, all state in memory; each call runs to completion, so commits are atomic. */
export class MemoryKv implements KvStore {
  private records = new Map<string, Entry>();
  private sets = new Map<string, Map<string, number>>();
  private windows = new Map<string, { count: number; expiresAt: number }>();
  private hashes = new Map<string, Map<string, number>>();
  /** when a hash of counters written with an expiry (tally) lapses */
  private hashExpiry = new Map<string, number>();

  private live(key: string): Entry | undefined {
    const e = this.records.get(key);
    if (e && e.expiresAt > 0 && e.expiresAt <= Date.now()) {
      this.records.delete(key);
      return undefined;
    }
    return e;
  }

  async get(key: string): Promise<Versioned | undefined> {
    const e = this.live(key);
    return e ? { version: e.version, data: e.data } : undefined;
  }

  async getMany(keys: readonly string[]): Promise<(Versioned | undefined)[]> {
    return keys.map((k) => {
      const e = this.live(k);
      return e ? { version: e.version, data: e.data } : undefined;
    });
  }

  async commit(conditions: readonly Condition[], writes: readonly Write[]): Promise<CommitResult> {
    for (const c of conditions) {
      if (this.sets.has(c.key)) throw refused(`${c.key} holds a sorted set, not a record`);
      if ((this.live(c.key)?.version ?? 0) !== c.version) return { ok: false, conflict: c.key };
    }
    this.check(writes);
    for (const w of writes) if (w.op === 'once' && this.live(w.key)) return { ok: false, conflict: w.key };
    for (const w of writes) {
      switch (w.op) {
        case 'put': {
          const prev = this.live(w.key)?.version ?? 0;
          const ttl = w.ttlMs ?? 0;
          this.records.set(w.key, { version: prev + 1, data: w.data, expiresAt: ttl > 0 ? Date.now() + ttl : 0 });
          break;
        }
        case 'del':
          this.records.delete(w.key);
          this.sets.delete(w.key);
          this.hashes.delete(w.key);
          this.hashExpiry.delete(w.key);
          break;
        case 'zadd': {
          let set = this.sets.get(w.key);
          if (!set) this.sets.set(w.key, (set = new Map()));
          set.set(w.member, w.score);
          break;
        }
        case 'zrem':
          this.sets.get(w.key)?.delete(w.member);
          break;
        case 'hincr':
          this.addCounters(w.key, w.fields, w.by);
          break;
        case 'tally':
          if (!this.liveHash(w.key)) this.hashExpiry.set(w.key, Date.now() + w.ttlMs);
          w.fields.forEach((f, i) => this.addCounters(w.key, [f], w.by[i]!));
          break;
        case 'once':
          this.records.set(w.key, { version: 1, data: w.data, expiresAt: 0 });
          break;
      }
    }
    return { ok: true };
  }

  /**
   * What the Redis adapter refuses before its first write, refused here too (all or nothing, the same
   * answer on both): a write on a key of another kind (records and counters are hashes there, queues sorted
   * sets), a number Redis cannot take (an expiry or an increment that is not an integer, a score that is not
   * finite).
   */
  private check(writes: readonly Write[]): void {
    // each key's kind as the writes before leave it
    const kinds = new Map<string, 'hash' | 'zset' | 'none'>();
    const kindOf = (key: string) =>
      kinds.get(key) ?? (this.sets.has(key) ? 'zset' : this.live(key) || this.hashes.has(key) ? 'hash' : 'none');
    const need = (key: string, want: 'hash' | 'zset') => {
      const kind = kindOf(key);
      if (kind !== 'none' && kind !== want) throw refused(`WRONGTYPE ${key} holds a ${kind}`);
      kinds.set(key, want);
    };
    for (const w of writes) {
      switch (w.op) {
        case 'put':
          if (w.ttlMs !== undefined && !Number.isSafeInteger(w.ttlMs)) throw refused(`not an integer: ${w.ttlMs}`);
          need(w.key, 'hash');
          break;
        case 'del':
          kinds.set(w.key, 'none');
          break;
        case 'zadd':
          if (!Number.isFinite(w.score)) throw refused(`not a score: ${w.score}`);
          need(w.key, 'zset');
          break;
        case 'zrem':
          need(w.key, 'zset');
          break;
        case 'hincr':
          if (!Number.isSafeInteger(w.by)) throw refused(`not an integer: ${w.by}`);
          need(w.key, 'hash');
          break;
        case 'tally':
          if (w.by.length !== w.fields.length || !w.by.every(Number.isSafeInteger)) throw refused(`not integers: ${w.by.join(' ')}`);
          need(w.key, 'hash');
          break;
        case 'once':
          // a write-once record is a plain string on Redis: a key of another kind is refused there
          if (this.sets.has(w.key) || this.hashes.has(w.key)) throw refused(`WRONGTYPE ${w.key} is not a write-once record`);
          break;
      }
    }
  }

  async range(key: string, min: number, max: number, limit: number, reverse = false): Promise<ScoredMember[]> {
    const set = this.sets.get(key);
    if (!set) return [];
    const hits: ScoredMember[] = [];
    for (const [member, score] of set) if (score >= min && score <= max) hits.push({ member, score });
    hits.sort((a, b) => (a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0)) * (reverse ? -1 : 1));
    return hits.slice(0, limit);
  }

  async countInWindow(key: string, windowMs: number): Promise<number> {
    const now = Date.now();
    const c = this.windows.get(key);
    if (!c || c.expiresAt <= now) {
      this.windows.set(key, { count: 1, expiresAt: now + windowMs });
      return 1;
    }
    c.count += 1;
    return c.count;
  }

  async count(key: string): Promise<number> {
    return this.sets.get(key)?.size ?? 0;
  }

  async putOnce(key: string, data: string, formerKey?: string): Promise<string> {
    const kept = this.live(key) ?? (formerKey === undefined ? undefined : this.live(formerKey));
    if (kept) return kept.data;
    this.records.set(key, { version: 1, data, expiresAt: 0 });
    return data;
  }

  async getOnce(key: string, formerKey?: string): Promise<string | undefined> {
    return (this.live(key) ?? (formerKey === undefined ? undefined : this.live(formerKey)))?.data;
  }

  private addCounters(key: string, fields: readonly string[], by: number): void {
    let hash = this.hashes.get(key);
    if (!hash) this.hashes.set(key, (hash = new Map()));
    for (const f of fields) hash.set(f, (hash.get(f) ?? 0) + by);
  }

  /** The hash of counters at `key`, dropped once its expiry (tally) has passed. */
  private liveHash(key: string): Map<string, number> | undefined {
    const at = this.hashExpiry.get(key);
    if (at !== undefined && at <= Date.now()) {
      this.hashes.delete(key);
      this.hashExpiry.delete(key);
    }
    return this.hashes.get(key);
  }

  async counters(key: string): Promise<Record<string, number>> {
    return Object.fromEntries(this.liveHash(key) ?? []);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
