import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { DisputeOperations, OperationOutcome } from '../ports/card-connector.js';
import { pause } from '../kernel/clock.js';
import { maskCardNumbers } from '../kernel/cards.js';
import { connectorFor } from '../ports/connector.js';
import {
  EVIDENCE_FIELDS,
  answersSent,
  isOpenDispute,
  type DisputeEvidence,
  type DisputeRecord,
  type SentAnswer,
} from '../records/dispute-record.js';
import { pathTo } from './transitions.js';
import { commitDisputeChange, type DisputeChange } from './write.js';
import { DECISION_DELAY_MS, closingDue, disputeReference, disputeStep, pastDue } from './rules.js';
import { depsOnClockOf } from '../clocks/clock-deps.js';

/** The answer of an evidence or accept call: the dispute as it now is, or a refusal saying why (return_status 0). */
export type DisputeAnswer = { ok: true; dispute: DisputeRecord } | { ok: false; message: string; dispute?: DisputeRecord };

const ATTEMPTS = 32;
/** Answers kept with no known outcome (each with its evidence text): another different one waits for them. */
const MAX_SENT = 10;
/** How long a call waits for another flow's claim on the payment (a capture, a refund) before it refuses. */
const BUSY_WAIT_MS = 50;
const BUSY_TRIES = 40;

/** The account's dispute, or undefined (another account's counts as none). */
export async function findDispute(deps: Pick<CoreDeps, 'store'>, account: Account, disputeId: string): Promise<DisputeRecord | undefined> {
  const d = await deps.store.getDispute(account.merchant_id, disputeId);
  return d && d.account_id === account.account_id ? d : undefined;
}

/** Why evidence or an acceptance is refused on the dispute as it is at `now`; undefined when it may be sent. */
function refusal(d: DisputeRecord, now: number, act: 'evidence' | 'accept'): string | undefined {
  if (!isOpenDispute(d.status)) return `dispute_id: the dispute is closed (${d.status}); nothing can be sent any more`;
  if (d.status === 'under_review') return 'dispute_id: evidence was already submitted; the dispute is under review';
  if (act === 'evidence' && pastDue(d, now)) return 'dispute_id: the due_date for evidence has passed';
  return undefined;
}

/** Card numbers typed into evidence are masked before it is kept, notified or sent (docs/security.md#card-data). */
function masked(evidence: DisputeEvidence): DisputeEvidence {
  const out = { ...evidence };
  for (const f of EVIDENCE_FIELDS) out[f] = maskCardNumbers(out[f]);
  return out;
}

/**
 * The evidence, submitted: the dispute under review (an inquiry through needs_response), its decision asked
 * for later. `submittedAt`: when the merchant sent it, where the gateway learns only now that it was taken.
 */
export function evidenceChange(d: DisputeRecord, evidence: DisputeEvidence, now: number, submittedAt = now): DisputeChange {
  const steps = pathTo(
    { ...d, evidence, evidence_submitted_at: submittedAt, sent: undefined, sending: undefined },
    'under_review',
    now,
    'evidence',
  )!;
  const due = closingDue(d.dispute_id).filter((x) => !x.member.startsWith('decide:'));
  return { before: d, steps, due: [...due, { queue: 'dispute', member: disputeStep.decide(d.dispute_id), at: now + DECISION_DELAY_MS }] };
}

/**
 * The dispute accepted: lost at once, its steps dropped but one: the acquirer is asked for it at once (its
 * `decide:` step), as an acquirer that is asked rather than one that reports by webhook (the sandbox) may move it
 * again later.
 */
export function acceptChange(d: DisputeRecord, now: number): DisputeChange {
  const due = closingDue(d.dispute_id).filter((x) => !x.member.startsWith('decide:'));
  return {
    before: d,
    steps: pathTo({ ...d, sent: undefined, sending: undefined }, 'lost', now, 'accepted')!,
    due: [...due, { queue: 'dispute', member: disputeStep.decide(d.dispute_id), at: now }],
  };
}

/**
 * Sends a dispute's answer to its acquirer under the answer's own reference (the acceptance's, or that of its
 * evidence text): the same answer sent again gets the acquirer's first result.
 */
export function sendToAcquirer(ops: DisputeOperations, d: DisputeRecord, answer: SentAnswer): Promise<OperationOutcome> {
  return answer.act === 'evidence'
    ? ops.submitEvidence(d.acquirer_ref, answer.evidence!, disputeReference.evidence(d.dispute_id, answer.n))
    : ops.accept(d.acquirer_ref, disputeReference.accept(d.dispute_id));
}

/** The change an answer the acquirer took makes: under review with its evidence (dated when sent), or lost. */
function takenChange(d: DisputeRecord, answer: SentAnswer, now: number): DisputeChange {
  return answer.act === 'evidence' ? evidenceChange(d, answer.evidence!, now, answer.at) : acceptChange(d, now);
}

/**
 * Sends again answers a dispute records as sent whose outcome is unknown, newest first: the merchant's latest
 * answer is what it means now, and where the acquirer took an earlier one it refuses the later ones (it takes
 * one answer a dispute), so the one it took answers its first result under its own reference and is found.
 * The dispute's change for the answer taken; 'unknown' when one still cannot be told, 'refused' when the
 * acquirer took none.
 */
export async function resendAnswers(
  deps: Pick<CoreDeps, 'log'>,
  ops: DisputeOperations,
  d: DisputeRecord,
  answers: readonly SentAnswer[],
  now: number,
): Promise<DisputeChange | 'refused' | 'unknown'> {
  let unknown = false;
  for (const answer of [...answers].reverse()) {
    if (answer.act === 'evidence' && !answer.evidence) continue;
    let outcome: OperationOutcome;
    try {
      outcome = await sendToAcquirer(ops, d, answer);
    } catch (err) {
      deps.log.warn(
        { merchant_id: d.merchant_id, dispute_id: d.dispute_id, act: answer.act, err: { message: (err as Error).message } },
        'dispute answer sent earlier: the acquirer still cannot be asked',
      );
      unknown = true;
      continue;
    }
    if (outcome.ok) return takenChange(d, answer, now);
  }
  return unknown ? 'unknown' : 'refused';
}

/**
 * Runs one answer to a dispute: reads it and its payment, checks it may still be answered, records what it
 * sends (`sent`: should its outcome be lost, the deadline sends it again rather than closing the dispute
 * unanswered), asks the acquirer (once per answer: the same reference again gets its first result), and
 * commits the change with everything it moves. An answer the acquirer refuses sends the earlier answers again
 * (one it took is why). A lost race reads again; a payment held by another flow is waited for a moment.
 */
async function answerDispute(
  deps: CoreDeps,
  account: Account,
  disputeId: string,
  act: 'evidence' | 'accept',
  now: number,
  build: (d: DisputeRecord) => DisputeChange,
  /** the acquirer to send the answer to (and the evidence sent); undefined: nothing is sent (a draft) */
  send: { ops: DisputeOperations; evidence?: DisputeEvidence } | undefined,
  alreadyDone: (d: DisputeRecord) => boolean,
): Promise<DisputeAnswer> {
  let sent = false;
  /** this call has recorded (or tried to record) what it sends: another copy may have sent it meanwhile */
  let marking = false;
  let busy = 0;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const d = await findDispute(deps, account, disputeId);
    if (!d) return { ok: false, message: 'dispute_id: no dispute of this account has this dispute_id' };
    // a copy of this call (a retry, a double click) that lost the race to the first one answers like it
    if ((sent || marking) && alreadyDone(d) && JSON.stringify(send?.evidence ?? d.evidence) === JSON.stringify(d.evidence))
      return { ok: true, dispute: d };
    const why = refusal(d, now, act);
    if (why) return { ok: false, message: why, dispute: d };
    const payment = await deps.store.getPayment(account.merchant_id, d.transaction_id);
    if (!payment) return { ok: false, message: 'dispute_id: the disputed payment is not found', dispute: d };
    if (send && !sent) {
      // what is sent is recorded first, as a claim is before a payment's acquirer is asked (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery), and kept
      // until the dispute moves: the acquirer may have taken it even when its answer is lost. The same answer
      // again goes under the same reference; other evidence under one of its own (its number n)
      const earlier = answersSent(d);
      const answer = earlier.find((a) => a.act === act && JSON.stringify(a.evidence) === JSON.stringify(send.evidence));
      if (!answer) {
        if (earlier.length >= MAX_SENT)
          return {
            ok: false,
            message: `dispute_id: ${earlier.length} answers sent to the acquirer have no known outcome yet; send the last one again`,
            dispute: d,
          };
        const n = act === 'evidence' ? 1 + Math.max(0, ...earlier.map((a) => a.n ?? 0)) : undefined;
        const added: SentAnswer = {
          act,
          at: now,
          ...(n !== undefined ? { n } : {}),
          ...(send.evidence ? { evidence: send.evidence } : {}),
        };
        const marked: DisputeRecord = {
          ...d,
          ...(send.evidence ? { evidence: send.evidence } : {}),
          sent: [...earlier, added],
          sending: undefined,
        };
        marking = true;
        const verdict = await commitDisputeChange(deps, account, payment, { before: d, steps: [marked] }, now);
        if (verdict === 'busy' && ++busy > BUSY_TRIES)
          return { ok: false, message: 'dispute_id: the payment is busy with another operation; try again', dispute: d };
        if (verdict !== 'applied') await pause(deps.clock, verdict === 'busy' ? BUSY_WAIT_MS : 2, 4);
        continue;
      }
      let outcome: OperationOutcome;
      try {
        outcome = await sendToAcquirer(send.ops, d, answer);
      } catch (err) {
        // unreachable, or its answer lost: it may have acted. Never "refused"; the same call again asks under the
        // same reference, which the acquirer answers with its first result, so it acts once
        return {
          ok: false,
          message: `dispute_id: the acquirer's answer is unknown (${(err as Error).message}); send the same call again`,
          dispute: d,
        };
      }
      if (!outcome.ok) {
        const refused = `the acquirer refused it: ${outcome.message}`;
        // an earlier answer the acquirer may have taken (its answer was lost) can be why: asked again, it tells
        const others = earlier.filter((a) => a !== answer);
        const resent = others.length === 0 ? 'refused' : await resendAnswers(deps, send.ops, d, others, now);
        if (resent === 'refused') {
          // refused under its own reference, it is not sent again: only answers whose outcome is unknown are kept
          const left: DisputeRecord = { ...d, sent: others.length > 0 ? others : undefined, sending: undefined };
          const verdict = await commitDisputeChange(deps, account, payment, { before: d, steps: [left] }, now);
          return { ok: false, message: refused, dispute: verdict === 'applied' ? { ...left, version: d.version + 1 } : d };
        }
        if (resent === 'unknown')
          return {
            ok: false,
            message: `${refused}; an answer sent earlier is still unknown at the acquirer: the deadline asks again`,
            dispute: d,
          };
        const verdict = await commitDisputeChange(deps, account, payment, resent, now);
        if (verdict !== 'applied') continue;
        const moved = { ...resent.steps[resent.steps.length - 1]!, version: d.version + 1 };
        const what = moved.status === 'lost' ? 'the acceptance sent earlier was taken' : 'the evidence sent earlier was taken';
        return { ok: false, message: `${refused}; ${what}: the dispute is already ${moved.status}`, dispute: moved };
      }
      sent = true;
    }
    const change = build(d);
    const verdict = await commitDisputeChange(deps, account, payment, change, now);
    if (verdict === 'applied') return { ok: true, dispute: { ...change.steps[change.steps.length - 1]!, version: d.version + 1 } };
    if (verdict === 'busy' && ++busy > BUSY_TRIES)
      return { ok: false, message: 'dispute_id: the payment is busy with another operation; try again', dispute: d };
    await pause(deps.clock, verdict === 'busy' ? BUSY_WAIT_MS : 2, 4);
  }
  return { ok: false, message: 'dispute_id: the dispute is busy; try again' };
}

/**
 * /v1/disputeEvidence (docs/disputes.md): `submit` false keeps a draft (no status change, nothing sent); true sends
 * the evidence to the acquirer and puts the dispute under review (an inquiry through needs_response), its
 * escalation and deadline dropped, and the acquirer's decision asked for a day later
 * (an acquirer that reports decisions by webhook answers nothing then). Refused after due_date, under review, and on a closed dispute.
 */
export async function submitDisputeEvidence(
  deps: CoreDeps,
  account: Account,
  disputeId: string,
  evidence: DisputeEvidence,
  submit: boolean,
  now: number,
): Promise<DisputeAnswer> {
  // a dispute of a test clock's payment is answered in the clock's time and queues (docs/test-clocks.md)
  const onClock = await depsOnClockOf(deps, account.merchant_id, await findDispute(deps, account, disputeId));
  if (onClock) return submitDisputeEvidence(onClock, account, disputeId, evidence, submit, onClock.clock.now());
  const kept = masked(evidence);
  const connector = connectorFor(deps, account);
  const ops = connector.disputes;
  if (submit && !ops)
    return { ok: false, message: `dispute_id: the connector ${connector.displayName} takes no evidence through the gateway` };
  return answerDispute(
    deps,
    account,
    disputeId,
    'evidence',
    now,
    (d) => (submit ? evidenceChange(d, kept, now) : { before: d, steps: [{ ...d, evidence: kept }] }),
    submit ? { ops: ops!, evidence: kept } : undefined,
    (d) => d.status === 'under_review',
  );
}

/** /v1/disputeAccept (docs/disputes.md): the merchant gives the amount up; the dispute is lost at once. */
export async function acceptDispute(deps: CoreDeps, account: Account, disputeId: string, now: number): Promise<DisputeAnswer> {
  const onClock = await depsOnClockOf(deps, account.merchant_id, await findDispute(deps, account, disputeId));
  if (onClock) return acceptDispute(onClock, account, disputeId, onClock.clock.now());
  const ops = connectorFor(deps, account).disputes;
  return answerDispute(
    deps,
    account,
    disputeId,
    'accept',
    now,
    (d) => acceptChange(d, now),
    ops ? { ops } : undefined,
    (d) => d.status === 'lost' && d.history.some((h) => h.cause === 'accepted'),
  );
}
