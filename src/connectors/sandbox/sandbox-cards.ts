import type { AuthorisationOutcome, OperationOutcome } from '../../core/ports/card-connector.js';
import { AcquirerUnreachable } from '../../core/acquirers/journal.js';

// The sandbox's timed test cards (docs/api.md, "Test cards and risk triggers"): how its answers change with time
// for the cards that behave as real acquirers do, an authorisation processing for minutes, an answer lost while
// the sandbox acts later, a refund accepted and failed afterwards.

/** How long a processing authorisation stays undecided. */
export const PROCESSING_MS = 3 * 60_000;
/** How long after its answer was lost the sandbox acts on a request of the lost-answer card. */
export const LOST_ANSWER_ACTS_AFTER_MS = 5_000;
/** How long after it was accepted a refund of the failing-refund card fails. */
export const REFUND_FAILS_AFTER_MS = 10 * 60_000;

/**
 * Cards whose payments behave as an acquirer does when it is not instant, each named by its authorisation's
 * prefix (carried by every later call on the payment):
 * - processing: the authorisation is answered pending, and decided (approved, or declined) PROCESSING_MS later;
 * - lost answer: every call's first answer (authorisation, capture, void, refund) is lost, and the sandbox acts
 *   LOST_ANSWER_ACTS_AFTER_MS later; meanwhile its status cannot be told, and the same request again is
 *   refused as still running; afterwards both answer what it did;
 * - failing refund: approved, and each refund is accepted, then fails REFUND_FAILS_AFTER_MS later.
 */
export const TIMED_CARDS: Record<string, { prefix: string; processing?: 'approved' | 'declined'; lostAnswer?: true; refundFails?: true }> =
  {
    '4000000000003022': { prefix: 'sbxpa', processing: 'approved' },
    '4000000000003030': { prefix: 'sbxpd', processing: 'declined' },
    '4000000000003048': { prefix: 'sbxla', lostAnswer: true },
    '4000000000005126': { prefix: 'sbxrf', refundFails: true },
  };
const TIMED_BY_PREFIX = new Map(Object.values(TIMED_CARDS).map((c) => [c.prefix, c]));

/** The timed behaviour of a payment, by its authorisation's connectorRef. */
export const timedPlanOf = (connectorRef: string) => TIMED_BY_PREFIX.get(connectorRef.slice(0, connectorRef.indexOf('_')));

/** What the sandbox keeps under a reference: what was asked, the first answer, and when it changes. */
export interface TimedEntry {
  op: string;
  outcome: AuthorisationOutcome | OperationOutcome;
  amount?: number;
  currency?: string;
  connectorRef?: string;
  /** a processing authorisation: decided then, as `then` */
  decides_at?: number;
  then?: AuthorisationOutcome;
  /** a request whose answer was lost: acted on only then (unknown before) */
  acts_at?: number;
  /** an accepted refund that fails then */
  fails_at?: number;
  /** this write's own mark: the caller whose write is the record knows its answer was the lost one */
  mark?: string;
}

/**
 * A record as the sandbox answers it at `now`: still running (thrown: unknown), decided since, failed since, or
 * as kept.
 */
export function entryAt<O>(entry: TimedEntry, now: number): O {
  if (entry.acts_at !== undefined && now < entry.acts_at)
    throw new AcquirerUnreachable('sandbox', 'a request under this reference is still running (lost-answer test card)');
  if (entry.decides_at !== undefined && entry.then && now >= entry.decides_at) return entry.then as O;
  if (entry.fails_at !== undefined && now >= entry.fails_at) return { ok: false, message: 'sandbox: refund failed at the bank' } as O;
  return entry.outcome as O;
}

/** The timed fields of a new record for a request on a payment of `connectorRef` (or authorised as `outcome`). */
export function timedFields(plan: ReturnType<typeof timedPlanOf>, op: string, now: number): Partial<TimedEntry> {
  if (!plan) return {};
  if (plan.lostAnswer) return { acts_at: now + LOST_ANSWER_ACTS_AFTER_MS };
  if (plan.refundFails && op === 'refund') return { fails_at: now + REFUND_FAILS_AFTER_MS };
  return {};
}
