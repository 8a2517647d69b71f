import type { Clock } from '../kernel/clock.js';
import type { CoreDeps } from '../ports/deps.js';
import type { ConnectorRegistry } from '../ports/card-connector.js';
import type { ChangeSet, GatewayStore } from '../ports/store.js';
import type { MerchantDirectory } from '../records/directory.js';
import type { ClockMark, TestClock } from '../records/clock-record.js';

export type { ClockMark, TestClock };

/** A clock that stands where it is set: the time of a test clock, moved only by its advance. */
export class FrozenClock implements Clock {
  constructor(private at: number) {}
  now(): number {
    return this.at;
  }
  set(at: number): void {
    this.at = at;
  }
}

/**
 * The store as a clock's objects see it: every change is the clock's (its due entries and notifications go to
 * the clock's own queues, the payments it writes carry the clock) and every queue read is of the clock's queues.
 * Everything else is the store itself.
 */
export function clockStore(store: GatewayStore, clockId: string): GatewayStore {
  const own: Partial<GatewayStore> = {
    commit: (change: ChangeSet) => store.commit({ ...change, clock: clockId }),
    due: (m, queue, upTo, limit) => store.due(m, queue, upTo, limit, clockId),
    overdueOutbox: (m, from, before, limit) => store.overdueOutbox(m, from, before, limit, clockId),
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in own) return own[prop as keyof GatewayStore];
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The merchant directory a clock's jobs walk: the clock's merchant only. */
function oneMerchant(merchants: MerchantDirectory, merchantId: string): MerchantDirectory {
  const ids = [merchantId];
  return new Proxy(merchants, {
    get(target, prop, receiver) {
      if (prop === 'merchantIds') return () => ids;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The core as a clock's objects live in it: the clock's time, its queues, its merchant. */
export interface ClockDeps extends CoreDeps {
  clock: FrozenClock;
  testClock: TestClock;
}

/** The same core with the clock's time and queues: the request paths and the jobs run unchanged on it. */
export function clockDeps(deps: CoreDeps, clock: TestClock): ClockDeps {
  const frozen = new FrozenClock(clock.frozen_time);
  return {
    ...deps,
    clock: frozen,
    liveClock: deps.liveClock ?? deps.clock,
    store: clockStore(deps.store, clock.test_clock_id),
    merchants: oneMerchant(deps.merchants, clock.merchant_id),
    connectors: clockConnectors(deps.connectors, frozen),
    testClock: clock,
  };
}

/** The connectors as a clock's payments reach them: in the clock's time where their answers change with time. */
function clockConnectors(connectors: ConnectorRegistry, clock: Clock): ConnectorRegistry {
  return {
    get: (code, account) => {
      const c = connectors.get(code, account);
      return c?.onClock ? c.onClock(clock) : c;
    },
  };
}

/** The clock a payment was written in, if any. */
export function clockOf(record: object): string | undefined {
  return (record as ClockMark).test_clock_id;
}

/**
 * The core for a payment of a clock, when `deps` is not already that clock's: read fresh, so an operation on
 * the payment is stamped with the clock's time now. Undefined when the clock is gone (deleted meanwhile).
 */
export async function depsForClock(deps: CoreDeps, merchantId: string, clockId: string): Promise<ClockDeps | undefined> {
  const clock = await deps.store.getTestClock(merchantId, clockId);
  return clock && clockDeps(deps, clock);
}

/** True when `deps` already runs in the named clock's time. */
export function runsOnClock(deps: CoreDeps, clockId: string): boolean {
  return (deps as Partial<ClockDeps>).testClock?.test_clock_id === clockId;
}

/**
 * The core a call on `record` (a payment, a dispute) must run on: its clock's, when it was written in a clock's
 * time and `deps` is not that clock's already; undefined otherwise (run on `deps`).
 */
export async function depsOnClockOf(deps: CoreDeps, merchantId: string, record: object | undefined): Promise<ClockDeps | undefined> {
  const id = record && clockOf(record);
  if (id === undefined || runsOnClock(deps, id)) return undefined;
  return depsForClock(deps, merchantId, id);
}
