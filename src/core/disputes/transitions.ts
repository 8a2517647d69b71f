import type { DisputeCause, DisputeRecord, DisputeStatus } from '../records/dispute-record.js';

/**
 * The only place that says which dispute status may follow which, and who may make each move
 * (docs/disputes.md, "Statuses and the only moves"). An inquiry escalates to needs_response (by itself, or on
 * the way of an answer or a decision); evidence puts a dispute under review; the merchant's acceptance loses
 * it; the acquirer decides it won or lost, and only the acquirer reverses a decision (a chargeback reversed, a
 * second chargeback, pre-arbitration won or lost). The deadline moves nothing: it ends evidence, and the
 * acquirer decides. No move outside this table is ever made.
 */
const TRANSITIONS: Readonly<Record<DisputeStatus, Readonly<Partial<Record<DisputeStatus, readonly DisputeCause[]>>>>> = {
  inquiry: { needs_response: ['escalated', 'evidence', 'accepted', 'decided'] },
  needs_response: { under_review: ['evidence', 'decided'], lost: ['accepted', 'decided'] },
  under_review: { won: ['decided'], lost: ['decided'] },
  won: { lost: ['decided'] },
  lost: { won: ['decided'] },
};

/** True when the table lets `cause` move a dispute from `from` to `to`. */
export function canMoveDispute(from: DisputeStatus, to: DisputeStatus, cause: DisputeCause): boolean {
  return TRANSITIONS[from][to]?.includes(cause) ?? false;
}

/** Every move of the table as [from, to, causes], for the docs' table and its test. */
export function disputeMoves(): [DisputeStatus, DisputeStatus, readonly DisputeCause[]][] {
  return Object.entries(TRANSITIONS).flatMap(([from, tos]) =>
    Object.entries(tos).map(
      ([to, causes]) => [from as DisputeStatus, to as DisputeStatus, causes!] as [DisputeStatus, DisputeStatus, readonly DisputeCause[]],
    ),
  );
}

export type DisputeMove = { ok: true; dispute: DisputeRecord } | { ok: false; from: DisputeStatus; to: DisputeStatus };

/** A copy of the dispute in its next status (closed_at set to now at each decision), or the refused move. */
export function moveDispute(d: DisputeRecord, to: DisputeStatus, now: number, cause: DisputeCause): DisputeMove {
  if (!canMoveDispute(d.status, to, cause)) return { ok: false, from: d.status, to };
  const closes = to === 'won' || to === 'lost';
  return {
    ok: true,
    dispute: {
      ...d,
      status: to,
      closed_at: closes ? now : d.closed_at,
      history: [...d.history, { at: now, from: d.status, to, cause }],
    },
  };
}

/**
 * The moves from `d` to `to` through the table: one move, or an inquiry's escalation first (inquiry ->
 * needs_response -> to). An acquirer's decision of a dispute won that the gateway still has awaiting a
 * response ('decided'; the merchant answered at the acquirer, in Stripe's dashboard say) passes through
 * under_review, as the evidence did there: a dispute is won only after review. Undefined when the table has
 * no such path.
 */
export function pathTo(d: DisputeRecord, to: DisputeStatus, now: number, cause: DisputeCause): DisputeRecord[] | undefined {
  const steps: DisputeRecord[] = [];
  let current = d;
  if (current.status === 'inquiry' && to !== 'needs_response') {
    const escalated = moveDispute(current, 'needs_response', now, cause);
    if (!escalated.ok) return undefined;
    steps.push((current = escalated.dispute));
  }
  if (current.status === 'needs_response' && to === 'won' && cause === 'decided') {
    const reviewed = moveDispute(current, 'under_review', now, cause);
    if (!reviewed.ok) return undefined;
    steps.push((current = reviewed.dispute));
  }
  const moved = moveDispute(current, to, now, cause);
  if (!moved.ok) return undefined;
  steps.push(moved.dispute);
  return steps;
}
