/**
 * The small set of storage primitives both adapters implement identically (one contract test suite runs
 * against both). Every record is a string with a version counter; `commit` applies its writes atomically
 * only when every condition holds, which is how a status change is one atomic step.
 */
export interface Versioned {
  version: number;
  data: string;
}

/** The record's version must equal `version` (0: the record must not exist). */
export interface Condition {
  key: string;
  version: number;
}

export type Write =
  /** replace the record's data and add one to its version; ttlMs > 0 sets an expiry */
  | { op: 'put'; key: string; data: string; ttlMs?: number }
  | { op: 'del'; key: string }
  | { op: 'zadd'; key: string; score: number; member: string }
  | { op: 'zrem'; key: string; member: string }
  /** add `by` to each named field of a hash of counters (created as needed) */
  | { op: 'hincr'; key: string; fields: readonly string[]; by: number }
  /** add `by[i]` to counter `fields[i]` of a hash; a hash this makes expires ttlMs later (one that exists keeps its expiry) */
  | { op: 'tally'; key: string; fields: readonly string[]; by: readonly number[]; ttlMs: number }
  /**
   * a write-once record (what putOnce writes) made by this commit: when the key already holds one, the whole
   * commit is a conflict on this key and writes nothing
   */
  | { op: 'once'; key: string; data: string };

export interface ScoredMember {
  member: string;
  score: number;
}

export type CommitResult = { ok: true } | { ok: false; conflict: string };

export interface KvStore {
  get(key: string): Promise<Versioned | undefined>;
  getMany(keys: readonly string[]): Promise<(Versioned | undefined)[]>;
  /** All keys of one commit must share a hash tag (Redis Cluster slot). */
  commit(conditions: readonly Condition[], writes: readonly Write[]): Promise<CommitResult>;
  /** Members with min <= score <= max, lowest first (or highest first with reverse), at most limit. */
  range(key: string, min: number, max: number, limit: number, reverse?: boolean): Promise<ScoredMember[]>;
  /** Adds one to a counter that lives windowMs from its first increment; returns the new count. */
  countInWindow(key: string, windowMs: number): Promise<number>;
  /** How many members a sorted set holds (0 when it does not exist). */
  count(key: string): Promise<number>;
  /**
   * Stores `data` under a key that holds nothing yet, in one step; answers the key's data, which is `data`
   * or what an earlier call stored. A write-once record: only putOnce writes the key, only getOnce reads it.
   * `formerKey`: where an earlier version kept the same record; when it holds one, that is the first (and
   * nothing is written). Read where it is cheap: in the same step on one Redis server and in memory; not on
   * a Redis Cluster (another slot).
   */
  putOnce(key: string, data: string, formerKey?: string): Promise<string>;
  /** The data putOnce stored under the key, if any (else under `formerKey`, if any). */
  getOnce(key: string, formerKey?: string): Promise<string | undefined>;
  /** Every field of a hash of counters. */
  counters(key: string): Promise<Record<string, number>>;
  /** Sends a message to every process listening on the channel (absent: the store serves one process). */
  publish?(channel: string, message: string): Promise<void>;
  /** Listens on a channel on a connection of its own; answers how to stop. */
  subscribe?(channel: string, onMessage: (message: string) => void): () => void;
  /** Fails unless the store answers and takes a write (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
