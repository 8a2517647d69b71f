import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { AuthorisationOutcome, CardConnector } from '../ports/card-connector.js';
import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { connectorFor } from '../ports/connector.js';
import { acquirerReference, commitMarked, releaseClaim, resolveDue } from './claim.js';
import { settleAuthorisation, type SettleOutcome } from './settle.js';

/** What a challenge the shopper never answered ends as. */
export const CHALLENGE_EXPIRED: Extract<SettleOutcome, { kind: 'declined' }> = {
  kind: 'declined',
  reason: 'THREEDS_FAILED',
  connectorRef: '',
  threedsResult: 'authentication not completed (challenge expired)',
};

/**
 * Resolves a stale claim of the authorisation flows (authorise, challenge answer, challenge expiry) through
 * the acquirer's record under the claim's reference: the outcome the acquirer gave is recorded, with its
 * notification, as if the holder had lived. An authorisation the acquirer never saw failed (nothing was
 * charged); a challenge answer it never saw leaves the challenge waiting (the shopper may answer again,
 * and the expiry sweep ends it).
 */
export async function resolveAuthorisationClaim(deps: CoreDeps, account: Account, p: Payment): Promise<void> {
  const claim = p.claim!;
  const connector = connectorFor(deps, account);
  const status = await connector.status(claim.reference);
  const known: AuthorisationOutcome | undefined = status?.op === 'authorise' ? status.outcome : undefined;
  let outcome: SettleOutcome | undefined;
  switch (claim.op) {
    case 'authorise':
      if (!known && p.risk.action !== 'REJECT' && !claim.grace) {
        // never sent to the acquirer: the order sent again (it carries the card) may still take it over
        // (authorise.ts); it fails only if no retry comes within half a resolve period more
        await extendForRetry(deps, p);
        return;
      }
      outcome =
        p.risk.action === 'REJECT'
          ? { kind: 'rejected' }
          : (known ?? { kind: 'error', message: 'the acquirer has no record of this authorisation', notSent: true });
      break;
    case 'challenge': {
      // never seen by the acquirer: the shopper's answer is sent again under the same reference
      const code = (claim.plan as { code?: string } | undefined)?.code;
      outcome =
        known ??
        (code !== undefined && p.connector_ref
          ? await connector.completeChallenge(p.connector_ref, code, claim.reference).catch(() => undefined)
          : undefined);
      break;
    }
    case 'challenge_expiry':
      // ended at the acquirer too, where it would finish the challenge by itself: that end answers, never the
      // read above alone (a cancel sent before may still be running there, voiding an approval the read shows);
      // not known there, it throws as an unreadable status does: the claim stays, and the next run asks again
      outcome = (connector.endChallenge ? await endChallengeAtAcquirer(connector, p) : known) ?? {
        ...CHALLENGE_EXPIRED,
        connectorRef: p.connector_ref ?? '',
      };
      break;
    default:
      return;
  }
  if (!outcome || (claim.op !== 'authorise' && outcome.kind === 'challenge')) {
    // nothing happened at the acquirer: release the claim, the payment waits as it did
    await releaseClaim(deps, p);
    return;
  }
  const notifyType = claim.op === 'authorise' ? 'payment' : 'threeds';
  const settled = await settleAuthorisation(deps, account, p, outcome, notifyType);
  if (!settled.replayed)
    deps.log.warn(
      { transaction_id: p.transaction_id, merchant_id: p.merchant_id, operation: claim.op, status: settled.payment.status },
      'unrecorded outcome resolved through the acquirer',
    );
}

/**
 * Ends at the acquirer a challenge the gateway ends (expired, or given up on the gateway's page) where the
 * acquirer would otherwise finish it by itself (CardConnector.endChallenge): the answer the shopper gave there
 * meanwhile, or undefined once nothing there can authorise the payment (so too for an acquirer whose challenge
 * the gateway finishes itself). Throws when the acquirer's state is unknown.
 */
export async function endChallengeAtAcquirer(connector: CardConnector, p: Payment): Promise<AuthorisationOutcome | undefined> {
  if (!connector.endChallenge || !p.connector_ref) return undefined;
  return connector.endChallenge(p.connector_ref, acquirerReference.endChallenge(p.transaction_id, p.attempt));
}

/** True for a payment whose pending state is expected: a challenge waiting, or a scheduled recurring charge. */
export function pendingByDesign(p: Payment): boolean {
  return p.status === S.PENDING && !p.claim && (p.threeds.challenge_pending || p.source === 'recurring');
}

/** A last window for the merchant's retry of an order whose authorisation the acquirer never saw. */
async function extendForRetry(deps: CoreDeps, p: Payment): Promise<void> {
  const until = deps.clock.now() + Math.ceil(deps.pendingResolveMs / 2);
  const next: Payment = { ...p, claim: { ...p.claim!, until, grace: true }, written_by: `${p.claim!.id}:grace` };
  await commitMarked(
    deps,
    { merchantId: p.merchant_id, payments: [{ next, expected: p.version }], due: [resolveDue(p.transaction_id, until)] },
    p.transaction_id,
    next.written_by!,
  );
}
