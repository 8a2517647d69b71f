// A leaf file (imports nothing of the core), so that ports/store.ts can name the record without a circle.

/** What the gateway keeps of an Idempotency-Key: the request's keyed hash and, once done, its answer. */
export interface IdempotencyRecord {
  version: number;
  /** keyed hash of the path and body of the first request */
  request_hash: string;
  status: 'running' | 'done';
  /** while running: when another request may take the key over (the first one's process died) */
  lease_until: number;
  created_at: number;
  answer?: { status: number; content_type: string; body: string };
}
