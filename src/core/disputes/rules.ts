import type { Minor } from '../kernel/money.js';

/** The last moment for evidence: 7 days after opening (the sandbox's window, docs/disputes.md). */
export const RESPONSE_WINDOW_MS = 7 * 86_400_000;
/** An inquiry escalates to needs_response this long after it opened, unless evidence arrived first. */
export const INQUIRY_ESCALATION_MS = 86_400_000;
/** The sandbox decides a dispute under review this long after its evidence arrived. */
export const DECISION_DELAY_MS = 86_400_000;
/**
 * The dispute fee: 15.00 in the payment's currency, in the gateway's hundredths (so 15 JPY, 15.000 KWD at the
 * acquirer's own minor units: kernel/money.ts acquirerAmount).
 */
export const DISPUTE_FEE: Minor = 1500;

/**
 * due_date is the last moment for evidence (docs/disputes.md): it has passed once the clock is beyond it, so evidence
 * sent at due_date itself is taken, and the deadline step runs the moment after.
 */
export const pastDue = (d: { due_at: number }, now: number): boolean => now > d.due_at;
/** When a dispute's deadline step falls due: the first moment after its due date. */
export const deadlineAt = (dueAt: number): number => dueAt + 1;

/** The due-queue members of a dispute's time-driven steps (the queue `dispute`): `<step>:<id>`. */
export const disputeStep = {
  /** ask the connector for disputes on a payment just captured */
  open: (transactionId: string) => `open:${transactionId}`,
  escalate: (disputeId: string) => `escalate:${disputeId}`,
  deadline: (disputeId: string) => `deadline:${disputeId}`,
  decide: (disputeId: string) => `decide:${disputeId}`,
};

/** The step and its subject of a member, or undefined for a member this version does not know. */
export function parseDisputeStep(member: string): { step: keyof typeof disputeStep; subject: string } | undefined {
  const at = member.indexOf(':');
  const step = member.slice(0, at);
  if (at < 0 || !(step in disputeStep)) return undefined;
  return { step: step as keyof typeof disputeStep, subject: member.slice(at + 1) };
}

/** `<transaction_id>-D<NN>`, NN from 01 per payment. */
export const disputeIdOf = (transactionId: string, n: number): string => `${transactionId}-D${String(n).padStart(2, '0')}`;

/**
 * The acquirer references of a dispute's answers, so a retry acts once: its acceptance, and each different
 * evidence text sent (`n` from 1: the first keeps the reference the dispute's evidence always had).
 */
export const disputeReference = {
  evidence: (disputeId: string, n = 1) => (n === 1 ? `${disputeId}-evidence` : `${disputeId}-evidence-${n}`),
  accept: (disputeId: string) => `${disputeId}-accept`,
};

/** The due steps a closed dispute no longer needs. */
export const closingDue = (disputeId: string) =>
  (['escalate', 'deadline', 'decide'] as const).map((s) => ({ queue: 'dispute' as const, member: disputeStep[s](disputeId), at: null }));
