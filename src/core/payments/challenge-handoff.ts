import type { CoreDeps } from '../ports/deps.js';
import type { Payment } from '../records/payment.js';

/** Addresses the merchant appended to issuer_url (docs/api.md), already checked by the page. */
export interface AppendedAddresses {
  return_url?: string;
  notify_url?: string;
}

/**
 * The hand-off of a waiting challenge to the acquirer's own page (Stripe, Adyen): answers where to send the
 * shopper, or undefined when the challenge is not the acquirer's (the sandbox issuer's page is the gateway's).
 * The shopper comes back through the acquirer to the challenge's return address, not through a form of this
 * page, so addresses appended to issuer_url are kept on the payment first, where the signed request carried
 * none. Keeping them is an offer: a payment that moved meanwhile (or is being answered) keeps what it has.
 */
export async function handOffChallenge(deps: CoreDeps, p: Payment, appended: AppendedAddresses): Promise<string | undefined> {
  const to = p.threeds.acquirer_url;
  if (!to || !p.threeds.challenge_pending) return undefined;
  const notify = appended.notify_url && !p.notify_url ? { notify_url: appended.notify_url } : {};
  const back = appended.return_url && !p.return_url ? { return_url: appended.return_url } : {};
  if (!p.claim && (notify.notify_url || back.return_url)) {
    const next: Payment = { ...p, ...notify, ...back, updated_at: deps.clock.now() };
    await deps.store.commit({ merchantId: p.merchant_id, payments: [{ next, expected: p.version }] }).catch((err: Error) => {
      deps.log.warn({ transaction_id: p.transaction_id, err: { message: err.message } }, 'appended challenge addresses not kept');
    });
  }
  return to;
}
