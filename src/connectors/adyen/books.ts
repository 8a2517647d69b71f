import type { AcquirerStatus, AuthorisationOutcome } from '../../core/ports/card-connector.js';
import type { AcquirerBooks, BookAuthorisation, BookRefund, PaymentReferences } from '../../core/ports/acquirer-books.js';
import type { AcquirerJournal } from '../../core/acquirers/journal.js';

/**
 * The id the journal marks an Adyen notification applied under (events.ts: its code, PSP reference and
 * success, as Adyen advises), so the books can tell which final word about a modification arrived.
 */
const eventId = (code: string, psp: string, success: boolean): string => `${code}:${psp}:${success}`;

/**
 * Adyen's books of one payment (CardConnector.books). Adyen has no API that reads a payment by reference, so
 * its book is the journal: Adyen's replies and notifications kept under the payment's references. What it can
 * say: each authorisation's answer (reply or AUTHORISATION notification) and its cancellation; each refund
 * the gateway sent, settled by its REFUND notification (success true: succeeded; false, or REFUND_FAILED,
 * REFUNDED_REVERSED: failed) and pending until one came. What it cannot: the capture (its first word, Adyen's
 * `received`, stays kept when a CAPTURE_FAILED follows, and a capture_mode auto capture is not asked at all),
 * refunds made in Adyen's Customer Area, and disputes (their notifications are applied as they come, and kept
 * nowhere else): those are never final here, or absent.
 */
export async function adyenBooks(refs: PaymentReferences, journal: AcquirerJournal): Promise<AcquirerBooks> {
  const txn = refs.transactionId;
  const attempts = Math.max(1, refs.attempts ?? 1);
  const found = await Promise.all(Array.from({ length: attempts }, (_, i) => authorisationOf(journal, i === 0 ? txn : `${txn}-a${i + 1}`)));
  const numbers = Array.from({ length: refs.refundsSent ?? 0 }, (_, i) => `${txn}-${String(i + 1).padStart(2, '0')}`);
  const refunds = await Promise.all(numbers.map((r) => refundOf(journal, r)));
  const capture = await journal.answer(`${txn}-cap`);
  return {
    authorisations: found.flatMap((a) => (a ? [a] : [])),
    capture:
      capture?.op === 'capture' && capture.outcome.ok
        ? { status: 'pending', amount: capture.amount ?? 0, final: false }
        : { status: 'none', amount: 0, final: false },
    refunds: refunds.flatMap((r) => (r ? [r] : [])),
    disputes: [],
  };
}

/** The authorisation under `reference`: Adyen's answer (after a challenge, its answer under `-3ds`), and its cancellation. */
async function authorisationOf(journal: AcquirerJournal, reference: string): Promise<BookAuthorisation | undefined> {
  const [asked, challenge, voided] = await Promise.all([
    journal.answer(reference),
    journal.answer(`${reference}-3ds`),
    journal.answer(`${reference}-void`),
  ]);
  const authorised = (s: AcquirerStatus): AuthorisationOutcome | undefined => (s?.op === 'authorise' ? s.outcome : undefined);
  const first = authorised(asked);
  if (!first) return (await journal.mayHaveReached(reference)) ? { reference, status: 'pending', voided: false, final: false } : undefined;
  const outcome = first.kind === 'challenge' ? authorised(challenge) : first;
  const status =
    outcome?.kind === 'approved' ? 'approved' : outcome?.kind === 'declined' || outcome?.kind === 'error' ? 'declined' : 'pending';
  return {
    reference,
    ...(outcome && 'connectorRef' in outcome ? { connectorRef: outcome.connectorRef } : {}),
    status,
    ...(asked?.amount !== undefined ? { amount: asked.amount } : {}),
    ...(asked?.currency ? { currency: asked.currency } : {}),
    voided: voided?.op === 'void' && voided.outcome.ok,
    // a challenge not answered: Adyen authorises only on the gateway's details call, never by itself
    final: status !== 'pending' || (first.kind === 'challenge' && !challenge),
  };
}

/** A refund the gateway sent: refused at once, or accepted and settled by its notification (pending until then). */
async function refundOf(journal: AcquirerJournal, reference: string): Promise<BookRefund | undefined> {
  const answer = await journal.answer(reference);
  if (answer?.op !== 'refund') {
    const inFlight = await journal.mayHaveReached(reference);
    return inFlight ? { reference, amount: 0, currency: '', status: 'pending', final: false } : undefined;
  }
  const asked = { reference, amount: answer.amount ?? 0, currency: answer.currency ?? '' };
  if (!answer.outcome.ok) return { ...asked, status: 'failed', final: true };
  const psp = answer.outcome.connectorRef;
  const [succeeded, refused, failed, reversed] = await Promise.all([
    journal.eventSeen(eventId('REFUND', psp, true)),
    journal.eventSeen(eventId('REFUND', psp, false)),
    journal.eventSeen(eventId('REFUND_FAILED', psp, true)),
    journal.eventSeen(eventId('REFUNDED_REVERSED', psp, true)),
  ]);
  const status = refused || failed || reversed ? 'failed' : succeeded ? 'succeeded' : 'pending';
  return { ...asked, refundRef: psp, status, final: status !== 'pending' };
}
