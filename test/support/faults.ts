import type { ChangeSet, GatewayStore } from '../../src/core/ports/store.js';
import type { CardConnector } from '../../src/core/ports/card-connector.js';
import { openStore } from '../../src/compose.js';
import { GatewayError } from '../../src/core/kernel/errors.js';

/**
 * A commit error as the Redis adapter raises it when the commit was sent and timed out or lost its
 * connection: it may have been applied (STORE_UNCONFIRMED), in both fault modes alike.
 */
export class StoreTimeout extends GatewayError {
  constructor() {
    super('STORE_UNCONFIRMED', 'the store did not confirm the change in time; its outcome is not known yet');
  }
}

export interface CommitFault {
  /** which commits fail */
  when: (change: ChangeSet) => boolean;
  /** 'before': the commit throws without being applied; 'after': it is applied, then the answer is lost */
  mode: 'before' | 'after';
  /** how many matching commits fail (then the store answers again) */
  times: number;
  /** 'refused': the store answers with an error and applies nothing (out of memory): STORE_UNAVAILABLE */
  refused?: boolean;
}

/**
 * The real store (Redis when a URL is given) with commits that fail on demand, before or after being applied:
 * the fault between "the acquirer answered" and "the outcome was committed".
 */
export function faultyStore(redisUrl: string | undefined): { store: GatewayStore; fail(fault: CommitFault): void; failures: () => number } {
  const real = openStore(redisUrl);
  const faults: CommitFault[] = [];
  let failures = 0;
  const store = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop !== 'commit') {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      return async (change: ChangeSet): Promise<boolean> => {
        const fault = faults.find((f) => f.times > 0 && f.when(change));
        if (!fault) return target.commit(change);
        fault.times--;
        failures++;
        if (fault.mode === 'after') await target.commit(change);
        if (fault.refused)
          throw new GatewayError(
            'STORE_UNAVAILABLE',
            "the store refused the change (OOM command not allowed when used memory > 'maxmemory'.); nothing was written; try again",
          );
        throw new StoreTimeout();
      };
    },
  });
  return { store, fail: (f) => faults.push(f), failures: () => failures };
}

/** A change set that records an outcome for this payment (it leaves the payment without a claim). */
export const settles = (transactionId: string) => (c: ChangeSet) =>
  (c.payments ?? []).some((p) => p.next.transaction_id === transactionId && !p.next.claim && p.expected > 0);

export interface ConnectorCalls {
  authorise: number;
  completeChallenge: number;
  capture: number;
  void: number;
  refund: number;
  status: number;
  amounts: { op: string; amount: number; currency: string }[];
}

export interface ConnectorFaults {
  /** real milliseconds an operation waits before acting */
  delayMs?: Partial<Record<keyof Omit<ConnectorCalls, 'amounts'>, number>>;
  /** operations that act at the acquirer, then never answer (the process stalled or died) */
  hangAfterActing?: Set<keyof Omit<ConnectorCalls, 'amounts'>>;
  /** operations that never reach the acquirer and never answer (the process died just before asking) */
  hangBeforeActing?: Set<keyof Omit<ConnectorCalls, 'amounts'>>;
  /** operations that act at the acquirer, then throw (a timeout on the answer) */
  throwAfterActing?: Set<keyof Omit<ConnectorCalls, 'amounts'>>;
  /** while true, the acquirer's status cannot be read (the call throws) */
  statusDown?: () => boolean;
}

/** Wraps the sandbox connector: counts calls, records the amounts it is sent, and stalls or hangs on demand. */
export function instrumented(faults: ConnectorFaults = {}): {
  wrap: (c: CardConnector) => CardConnector;
  calls: ConnectorCalls;
  faults: ConnectorFaults;
} {
  const calls: ConnectorCalls = { authorise: 0, completeChallenge: 0, capture: 0, void: 0, refund: 0, status: 0, amounts: [] };
  const pause = (op: keyof Omit<ConnectorCalls, 'amounts'>) => new Promise<void>((r) => setTimeout(r, faults.delayMs?.[op] ?? 0));
  const act = async <T>(op: keyof Omit<ConnectorCalls, 'amounts'>, run: () => Promise<T>): Promise<T> => {
    calls[op]++;
    if (faults.hangBeforeActing?.has(op)) return new Promise<T>(() => undefined);
    await pause(op);
    const result = await run();
    if (faults.hangAfterActing?.has(op)) return new Promise<T>(() => undefined);
    if (faults.throwAfterActing?.has(op)) throw new Error(`${op}: no answer within the timeout`);
    return result;
  };
  const wrap = (c: CardConnector): CardConnector => ({
    code: c.code,
    displayName: c.displayName,
    authorise: (req) => {
      calls.amounts.push({ op: 'authorise', amount: req.amount, currency: req.currency });
      return act('authorise', () => c.authorise(req));
    },
    completeChallenge: (ref, code, reference) => act('completeChallenge', () => c.completeChallenge(ref, code, reference)),
    capture: (ref, amount, currency, reference) => {
      calls.amounts.push({ op: 'capture', amount, currency });
      return act('capture', () => c.capture(ref, amount, currency, reference));
    },
    void: (ref, reference) => act('void', () => c.void(ref, reference)),
    refund: (ref, amount, currency, reference) => {
      calls.amounts.push({ op: 'refund', amount, currency });
      return act('refund', () => c.refund(ref, amount, currency, reference));
    },
    status: (reference) => {
      calls.status++;
      if (faults.statusDown?.()) return Promise.reject(new Error('status: the acquirer did not answer'));
      return c.status(reference);
    },
  });
  return { wrap, calls, faults };
}
