import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { GatewayError } from '../kernel/errors.js';
import type { DisputeEvidence, DisputeRecord } from '../records/dispute-record.js';
import { acceptDispute, submitDisputeEvidence, type DisputeAnswer } from '../disputes/respond.js';
import { recordAction } from './audit.js';
import type { ActionResult } from './actions.js';
import { requireAdmin } from './actions.js';
import type { PortalSession } from './sessions.js';

/** The merchant's dispute and its account, or 404 for anything else (another merchant's dispute too). */
export async function ownDispute(
  deps: CoreDeps,
  session: PortalSession,
  disputeId: string,
): Promise<{ dispute: DisputeRecord; account: Account }> {
  const dispute = await deps.store.getDispute(session.merchant_id, disputeId);
  const account = dispute ? deps.merchants.find(session.merchant_id, dispute.account_id) : undefined;
  if (!dispute || !account) throw new GatewayError('NOT_FOUND', 'dispute_id: no such dispute');
  return { dispute, account };
}

async function done(
  deps: CoreDeps,
  session: PortalSession,
  account: Account,
  action: 'dispute_evidence' | 'dispute_accept',
  disputeId: string,
  detail: Record<string, string>,
  answer: DisputeAnswer,
): Promise<ActionResult> {
  const result = answer.ok ? `dispute ${answer.dispute.status}` : answer.message;
  const audit = await recordAction(deps, session, {
    account_id: account.account_id,
    action,
    subject: disputeId,
    detail,
    ok: answer.ok,
    result,
  });
  return { ok: answer.ok, result, audit };
}

/** Evidence by hand (a draft, or sent): the same core as POST /v1/disputeEvidence. */
export async function disputeEvidenceByHand(
  deps: CoreDeps,
  session: PortalSession,
  disputeId: string,
  evidence: DisputeEvidence,
  submit: boolean,
): Promise<ActionResult> {
  requireAdmin(session);
  const { account } = await ownDispute(deps, session, disputeId);
  const answer = await submitDisputeEvidence(deps, account, disputeId, evidence, submit, deps.clock.now());
  return done(deps, session, account, 'dispute_evidence', disputeId, { submit: submit ? '1' : '0' }, answer);
}

/** Accepting by hand: the same core as POST /v1/disputeAccept. */
export async function acceptDisputeByHand(deps: CoreDeps, session: PortalSession, disputeId: string): Promise<ActionResult> {
  requireAdmin(session);
  const { account } = await ownDispute(deps, session, disputeId);
  const answer = await acceptDispute(deps, account, disputeId, deps.clock.now());
  return done(deps, session, account, 'dispute_accept', disputeId, {}, answer);
}
