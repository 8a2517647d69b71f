/**
 * What the process knows of its store without asking it: whether its connection is up, and the errors its
 * commands met, by kind. /metrics reads this, so it answers at once while the store is down
 * (docs/operations.md).
 */

/**
 * unreachable: the command was never sent (no connection); lost: the connection dropped with the command
 * sent and unanswered; timeout: no answer within STORE_TIMEOUT_MS; refused: the store answered with an error
 * (out of memory, read-only, a script error); unconfirmed: the replicas did not confirm a commit in time.
 */
export type StoreErrorKind = 'unreachable' | 'lost' | 'timeout' | 'refused' | 'unconfirmed';

export const STORE_ERROR_KINDS: readonly StoreErrorKind[] = ['unreachable', 'lost', 'timeout', 'refused', 'unconfirmed'];

export class StoreHealth {
  /** the connection is up (always true for the embedded store) */
  connected: boolean;
  readonly errors = new Map<StoreErrorKind, number>(STORE_ERROR_KINDS.map((k) => [k, 0]));
  /** commits whose outcome the store could not tell (sent without an answer, or unconfirmed) */
  unknownCommits = 0;

  constructor(connected = true) {
    this.connected = connected;
  }

  error(kind: StoreErrorKind): void {
    this.errors.set(kind, this.errors.get(kind)! + 1);
  }
}
