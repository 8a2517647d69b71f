import type Stripe from 'stripe';
import type { AcquirerEvent } from '../../core/ports/acquirer-webhooks.js';
import type { AcquirerDispute } from '../../core/ports/card-connector.js';
import type { DisputeReason } from '../../core/records/dispute-record.js';
import { REFERENCE_METADATA } from './map.js';

/**
 * A Stripe event in the gateway's terms. The intent's events name the authorisation's reference (its
 * metadata) and the intent: `status` then reads the intent directly instead of waiting for Stripe's search,
 * and an intent authorised or failed settles its payment still waiting on the challenge at Stripe's page.
 * A refund that failed after Stripe accepted it (refund.failed, or charge.refund.updated to failed) names the
 * refund's reference (its metadata); a dispute (charge.dispute.*) names its intent, whose payment the journal
 * knows, and becomes the gateway's dispute (docs/disputes.md). Any other type is acknowledged and ignored.
 */
export function stripeEvent(event: Stripe.Event): AcquirerEvent {
  const base = { id: event.id, type: event.type };
  const object = event.data.object as { id?: string; object?: string; metadata?: Record<string, string> | null; payment_intent?: unknown };
  const reference = object.metadata?.[REFERENCE_METADATA];
  switch (event.type) {
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.succeeded':
      // authorised: past a challenge on Stripe's page, if it had one
      return reference && object.id ? { ...base, reference, object: object.id, challengeDone: true, approved: true } : base;
    case 'payment_intent.payment_failed':
      return reference && object.id ? { ...base, reference, object: object.id, challengeDone: true } : base;
    case 'payment_intent.canceled':
    case 'payment_intent.processing':
    case 'payment_intent.requires_action':
      return reference && object.id ? { ...base, reference, object: object.id } : base;
    case 'refund.failed':
    case 'charge.refund.updated': {
      const refund = event.data.object as Stripe.Refund;
      if (refund.status !== 'failed' && refund.status !== 'canceled') return base;
      const reason = refund.failure_reason ?? refund.status;
      if (!reference) return { ...base, unhandled: `refund ${refund.id} failed at Stripe (${reason}), not the gateway's` };
      return {
        ...base,
        reference,
        refundFailed: { reason: `stripe: ${reason}` },
        answer: {
          op: 'refund',
          outcome: { ok: false, message: `stripe: refund ${reason}` },
          amount: refund.amount,
          currency: refund.currency.toUpperCase(),
        },
      };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
    case 'charge.dispute.updated':
    case 'charge.dispute.funds_reinstated':
    case 'charge.dispute.funds_withdrawn': {
      const dispute = event.data.object as Stripe.Dispute;
      const intent = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : dispute.payment_intent?.id;
      if (!intent) return { ...base, unhandled: `dispute ${dispute.id} at Stripe names no payment intent` };
      return { ...base, paymentObject: intent, dispute: stripeDispute(dispute, event.type, event.created) };
    }
    default:
      return base;
  }
}

const STRIPE_REASONS: Readonly<Record<string, DisputeReason>> = {
  fraudulent: 'fraudulent',
  product_not_received: 'product_not_received',
  duplicate: 'duplicate',
  subscription_canceled: 'subscription_canceled',
  credit_not_processed: 'credit_not_processed',
};

/** The gateway's status for a Stripe dispute status (docs/connectors.md, Webhooks). */
function statusOf(status: string): AcquirerDispute['status'] {
  // closed without the money taken: won, an inquiry closed without a chargeback, a dispute prevented
  if (status === 'won' || status === 'warning_closed' || status === 'prevented') return 'won';
  // lost, and a lost dispute under appeal: the money stays taken until Stripe reports it won
  if (status === 'lost' || status.startsWith('appeal_')) return 'lost';
  if (status.endsWith('under_review')) return 'under_review';
  return status.startsWith('warning_') ? 'inquiry' : 'needs_response';
}

/** Where a status stands in a dispute's story, for events of the same second (a decision after evidence). */
const RANK: Readonly<Record<AcquirerDispute['status'], number>> = { inquiry: 1, needs_response: 2, under_review: 3, won: 4, lost: 4 };

/**
 * A Stripe dispute as the connector reports it: an inquiry (warning_needs_response) or a chargeback to answer
 * (needs_response), evidence Stripe has (under_review, warning_under_review: the gateway's, or evidence the
 * merchant sent in Stripe's Dashboard), and Stripe's decision (won, lost; an inquiry closed without a
 * chargeback, warning_closed, and a dispute prevented are won; a lost one under appeal is lost). The money
 * events move a decided dispute: funds withdrawn from a dispute won is lost again (a chargeback after the win),
 * funds reinstated to a dispute lost is won (the decision reversed); on an open dispute they move nothing (the
 * gateway debits the amount when the dispute opens). The event's time (`created`, seconds) orders the
 * reports, so an event delivered after a later one changes nothing. Reasons outside the gateway's list are
 * `general`; the amount is Stripe's, in minor units; its evidence_details.due_by (unix seconds) is the
 * dispute's due date.
 */
export function stripeDispute(d: Stripe.Dispute, type = 'charge.dispute.updated', created?: number): AcquirerDispute {
  let status = statusOf(d.status);
  let rank = RANK[status];
  if (type === 'charge.dispute.funds_withdrawn' && status === 'won') [status, rank] = ['lost', 5];
  if (type === 'charge.dispute.funds_reinstated' && status === 'lost') [status, rank] = ['won', 5];
  const dueBy = d.evidence_details?.due_by;
  return {
    disputeRef: d.id,
    reason: STRIPE_REASONS[d.reason] ?? 'general',
    status,
    amount: d.amount,
    ...(typeof dueBy === 'number' && Number.isFinite(dueBy) ? { dueAt: dueBy * 1000 } : {}),
    ...(typeof created === 'number' && Number.isFinite(created) ? { order: created * 10 + rank } : {}),
    // an inquiry closed (lapsed, or accepted by the merchant: Stripe says the same) or a dispute prevented
    // closes an open dispute and never reverses a decision
    ...(d.status === 'warning_closed' || d.status === 'prevented' ? { openOnly: true } : {}),
  };
}
