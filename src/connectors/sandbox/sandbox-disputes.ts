import type { Clock } from '../../core/kernel/clock.js';
import type { AcquirerLedger } from '../../core/ports/acquirer-ledger.js';
import type { DisputeEvidence, DisputeReason } from '../../core/records/dispute-record.js';
import type { AcquirerDispute, DisputeOperations, OperationOutcome } from '../../core/ports/card-connector.js';

// The sandbox's disputes (docs/disputes.md, "Sandbox test cards"): its dispute test cards, how it decides them,
// and the cycle card's reversals.

/**
 * Dispute test cards: approved, then disputed as soon as the payment is captured. The authorisation's
 * reference carries the dispute to come (its prefix), so a capture costs nothing more to tell: `watches` reads
 * the prefix, `since` answers the one dispute. `cycle`: the sandbox reverses its decision later, and charges a
 * reversed loss back again (sandboxCycle).
 */
export const DISPUTE_CARDS: Record<string, { prefix: string; reason: DisputeReason; inquiry: boolean; cycle?: true }> = {
  '4000000000000259': { prefix: 'sbxdf', reason: 'fraudulent', inquiry: false },
  '4000000000002685': { prefix: 'sbxdp', reason: 'product_not_received', inquiry: false },
  '4000000000001976': { prefix: 'sbxdg', reason: 'general', inquiry: true },
  '4000000000007726': { prefix: 'sbxdc', reason: 'duplicate', inquiry: false, cycle: true },
};
const DISPUTE_BY_PREFIX = new Map(Object.values(DISPUTE_CARDS).map((c) => [c.prefix, c]));
const disputePlanOf = (connectorRef: string) => DISPUTE_BY_PREFIX.get(connectorRef.slice(0, connectorRef.indexOf('_')));

const DAY_MS = 86_400_000;
/** The sandbox's last moment for evidence: this long after it opened the dispute (at the payment's capture). */
export const SANDBOX_RESPONSE_WINDOW_MS = 7 * DAY_MS;
/** The cycle card's reversals: each this long after the move before it. */
export const SANDBOX_REVERSAL_MS = 2 * DAY_MS;

/** The sandbox's decision on evidence: won if it holds `winning_evidence`, lost if `losing_evidence`, else won. */
export function sandboxDecision(evidence: DisputeEvidence): 'won' | 'lost' {
  const text = Object.values(evidence).join('\n');
  if (text.includes('winning_evidence')) return 'won';
  return text.includes('losing_evidence') ? 'lost' : 'won';
}

/**
 * The cycle card's dispute at `now`, its first decision made at `decidedAt`: that decision until
 * SANDBOX_REVERSAL_MS later, then reversed. A loss reversed (a chargeback reversed: won) is charged back again
 * another SANDBOX_REVERSAL_MS later (a second chargeback: lost, final); a win reversed (pre-arbitration lost) is
 * final. With the time of its next move while it has one.
 */
export function sandboxCycle(first: 'won' | 'lost', decidedAt: number, now: number): { status: 'won' | 'lost'; askAgainAt?: number } {
  const reversedAt = decidedAt + SANDBOX_REVERSAL_MS;
  if (now < reversedAt) return { status: first, askAgainAt: reversedAt };
  if (first === 'won') return { status: 'lost' };
  const againAt = reversedAt + SANDBOX_REVERSAL_MS;
  return now < againAt ? { status: 'won', askAgainAt: againAt } : { status: 'lost' };
}

/** The ledger key of a dispute's first decision: `won` or `lost`, the first written wins. */
export const decisionKey = (disputeRef: string): string => `${disputeRef}#decision`;

/**
 * The dispute of a payment as the sandbox's books show it at `now` (reconciliation), read without writing:
 * none unless the authorisation is of a dispute test card; else its decision kept, or lost once past its due
 * date when it was opened, else open; the cycle card's decision as reversed by then.
 */
export async function sandboxDisputeStanding(
  lookup: (key: string) => Promise<string | undefined>,
  connectorRef: string,
  now: number,
): Promise<{ disputeRef: string; reason: DisputeReason; status: 'inquiry' | 'needs_response' | 'won' | 'lost' } | undefined> {
  const plan = disputePlanOf(connectorRef);
  if (!plan) return undefined;
  const disputeRef = `${connectorRef}_dp01`;
  const [opened, kept, decidedAt] = await Promise.all([
    lookup(`${disputeRef}#opened`),
    lookup(decisionKey(disputeRef)),
    lookup(`${disputeRef}#decided`),
  ]);
  const overdue = opened !== undefined && now > Number(opened) + SANDBOX_RESPONSE_WINDOW_MS;
  const decided = kept === 'won' || kept === 'lost' ? kept : overdue ? 'lost' : undefined;
  if (!decided) return { disputeRef, reason: plan.reason, status: plan.inquiry ? 'inquiry' : 'needs_response' };
  const status = plan.cycle ? sandboxCycle(decided, decidedAt === undefined ? now : Number(decidedAt), now).status : decided;
  return { disputeRef, reason: plan.reason, status };
}

/** The sandbox's one-answer-per-reference record of a request (SandboxConnector's `once`). */
export type AnswerOnce = (
  request: { op: string; connectorRef: string },
  reference: string,
  act: () => OperationOutcome,
) => Promise<OperationOutcome>;

/**
 * The sandbox's dispute operations: one dispute per payment of a dispute test card, named `<connectorRef>_dp01`,
 * opened at the payment's capture (`since`, the capture's time as the gateway asks, kept in the ledger the first
 * time) and due 7 days later. Its decision is kept in the ledger (the first one wins): when the evidence or the
 * acceptance arrives, or, for a dispute still unanswered when asked after its due date at the sandbox's time,
 * lost. The gateway reads it when it asks (its decision step 1 day after the evidence, its deadline step, after
 * an acceptance). The cycle card's decision is reversed later (sandboxCycle), timed from when it was first
 * reported.
 */
export function sandboxDisputes(
  ledger: Pick<AcquirerLedger, 'ledgerRecord' | 'ledgerLookup'>,
  clock: Pick<Clock, 'now'>,
  once: AnswerOnce,
): DisputeOperations {
  /**
   * Evidence or an acceptance under `reference`, answered once: taken (its decision kept, the first one wins)
   * unless another answer of the dispute was taken before it, as an acquirer refuses a dispute answered already.
   */
  const answer = async (act: 'evidence' | 'accept', disputeRef: string, reference: string, decision: 'won' | 'lost') => {
    const answered = (await ledger.ledgerLookup(decisionKey(disputeRef))) !== undefined;
    const outcome = await once({ op: act, connectorRef: disputeRef }, reference, (): OperationOutcome =>
      answered ? { ok: false, message: 'sandbox: the dispute was answered already' } : { ok: true, connectorRef: disputeRef },
    );
    if (outcome.ok) await ledger.ledgerRecord(decisionKey(disputeRef), decision);
    return outcome;
  };
  return {
    watches: (connectorRef) => disputePlanOf(connectorRef) !== undefined,
    since: async (connectorRef, since): Promise<AcquirerDispute[]> => {
      const plan = disputePlanOf(connectorRef);
      if (!plan) return [];
      const now = clock.now();
      const disputeRef = `${connectorRef}_dp01`;
      const [opened, kept] = await Promise.all([
        ledger.ledgerRecord(`${disputeRef}#opened`, String(since)),
        ledger.ledgerLookup(decisionKey(disputeRef)),
      ]);
      const dueAt = Number(opened) + SANDBOX_RESPONSE_WINDOW_MS;
      // the sandbox's rule: a dispute still unanswered after its due date is lost
      const decided = kept ?? (now > dueAt ? await ledger.ledgerRecord(decisionKey(disputeRef), 'lost') : undefined);
      const base = { disputeRef, reason: plan.reason, dueAt };
      if (decided !== 'won' && decided !== 'lost') return [{ ...base, status: plan.inquiry ? 'inquiry' : 'needs_response' }];
      if (!plan.cycle) return [{ ...base, status: decided }];
      const decidedAt = Number(await ledger.ledgerRecord(`${disputeRef}#decided`, String(now)));
      return [{ ...base, ...sandboxCycle(decided, decidedAt, now) }];
    },
    submitEvidence: (disputeRef, evidence, reference) => answer('evidence', disputeRef, reference, sandboxDecision(evidence)),
    accept: (disputeRef, reference) => answer('accept', disputeRef, reference, 'lost'),
  };
}
