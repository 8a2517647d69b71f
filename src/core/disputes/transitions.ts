import type { DisputeCause, DisputeRecord, DisputeStatus } from './dispute-record.js';

/**
 * The only place that says which dispute status may follow which (DESIGN 13: "Only these moves exist").
 * An inquiry escalates to needs_response; evidence puts a dispute under review; the acquirer's decision
 * closes it won or lost; accepting it, or letting due_date pass without evidence, loses it. An inquiry
 * answered or accepted before it escalates goes through needs_response in the same step (two moves, each
 * recorded and notified): no move outside this table is ever made.
 */
const TRANSITIONS: Readonly<Record<DisputeStatus, readonly DisputeStatus[]>> = {
  inquiry: ['needs_response'],
  needs_response: ['under_review', 'lost'],
  under_review: ['won', 'lost'],
  won: [],
  lost: [],
};

export function canMoveDispute(from: DisputeStatus, to: DisputeStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export type DisputeMove = { ok: true; dispute: DisputeRecord } | { ok: false; from: DisputeStatus; to: DisputeStatus };

/** A copy of the dispute in its next status (closed_at set when it closes), or the refused move. */
export function moveDispute(d: DisputeRecord, to: DisputeStatus, now: number, cause: DisputeCause): DisputeMove {
  if (!canMoveDispute(d.status, to)) return { ok: false, from: d.status, to };
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
