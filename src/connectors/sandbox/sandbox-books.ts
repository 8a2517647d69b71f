import type { AuthorisationOutcome, OperationOutcome } from '../../core/ports/card-connector.js';
import type {
  AcquirerBooks,
  BookAuthorisation,
  BookCapture,
  BookDispute,
  BookRefund,
  PaymentReferences,
} from '../../core/ports/acquirer-books.js';
import type { DisputeReason } from '../../core/records/dispute-record.js';
import { entryAt, type TimedEntry } from './sandbox-cards.js';

/**
 * How many refund numbers past the highest the gateway sent are read: a refund the gateway never recorded
 * (made at the acquirer directly, or sent by a process that died before noting its number) sits there.
 */
export const REFUNDS_READ_AHEAD = 3;

/** The sandbox's ledger as its books read it (sandbox.ts hands in its own keys and its dispute test cards). */
export interface SandboxLedgerView {
  lookup(reference: string): Promise<string | undefined>;
  /** the sandbox's time: its timed test cards' records read as they stand then (sandbox-cards.ts) */
  now(): number;
  /** the key of an authorisation's capture marker: the reference that captured it */
  captureMarker(connectorRef: string): string;
  /** the dispute an authorisation's payment gets once captured (a dispute test card), as it stands now, if any */
  dispute(connectorRef: string): Promise<{ disputeRef: string; reason: DisputeReason; status: BookDispute['status'] } | undefined>;
}

/**
 * A ledger record as kept under a reference: what was asked and the first answer (a capture's: the request
 * only), with a timed test card's times (TimedEntry).
 */
interface Kept extends Omit<Partial<TimedEntry>, 'op' | 'outcome'> {
  op: string;
  /** authorisations: captured with it; absent in records kept before authorisations said */
  capture?: boolean;
  outcome?: AuthorisationOutcome | OperationOutcome;
}

/**
 * A record as it stands at `now`: its answer then, and whether the sandbox is still acting on it (a request
 * whose answer was lost and not acted on yet, an authorisation still processing, a refund accepted that is
 * going to fail at the bank).
 */
function standing<O>(k: Kept, now: number): { outcome: O | undefined; inFlight: boolean } {
  if (k.acts_at !== undefined && now < k.acts_at) return { outcome: undefined, inFlight: true };
  if (k.fails_at !== undefined && now < k.fails_at) return { outcome: k.outcome as O, inFlight: true };
  if (!k.outcome) return { outcome: undefined, inFlight: false };
  const outcome = entryAt<O>(k as TimedEntry, now);
  return { outcome, inFlight: (outcome as { kind?: string }).kind === 'pending' };
}

const refundReference = (transactionId: string, n: number): string => `${transactionId}-${String(n).padStart(2, '0')}`;
const authorisationReference = (transactionId: string, attempt: number): string =>
  attempt > 1 ? `${transactionId}-a${attempt}` : transactionId;

/**
 * The sandbox's books of one payment (CardConnector.books): its ledger's records under the payment's
 * references (claim.ts): each attempt's authorisation with its challenge answer (`-3ds`) and its void
 * (`-void`), the capture (`-cap`, taken when its marker names it), the refunds (`-NN`, read a few numbers
 * beyond the last the gateway sent) and the dispute of a dispute test card, each as it stands at the sandbox's
 * time. Not final: what a timed test card leaves in flight then (an authorisation processing, a request whose
 * answer was lost and not acted on yet, a refund accepted that is going to fail: sandbox-cards.ts), and the
 * capture of an authorisation kept before authorisations recorded whether they captured. A challenge not
 * answered is pending (it holds nothing) and final: only the gateway's own page answers it.
 */
export async function sandboxBooks(refs: PaymentReferences, ledger: SandboxLedgerView): Promise<AcquirerBooks> {
  const read = async (reference: string): Promise<Kept | undefined> => {
    const kept = await ledger.lookup(reference);
    return kept === undefined ? undefined : (JSON.parse(kept) as Kept);
  };
  const txn = refs.transactionId;
  const now = ledger.now();
  const attempts = Math.max(1, refs.attempts ?? 1);
  const found = await Promise.all(
    Array.from({ length: attempts }, (_, i) => authorisationOf(read, authorisationReference(txn, i + 1), now)),
  );
  const authorisations = found.flatMap((a) => (a ? [a] : []));
  const current = found[attempts - 1];
  const capture = await captureOf(ledger, read, txn, current, now);
  const numbers = Array.from({ length: (refs.refundsSent ?? 0) + REFUNDS_READ_AHEAD }, (_, i) => refundReference(txn, i + 1));
  const refunds = (await Promise.all(numbers.map((r) => refundOf(read, r, now)))).flatMap((r) => (r ? [r] : []));
  return {
    authorisations: authorisations.map(({ capture: _, ...a }) => a),
    capture,
    refunds,
    disputes: await disputesOf(ledger, current, capture),
  };
}

type Read = (reference: string) => Promise<Kept | undefined>;
type Found = BookAuthorisation & { capture?: boolean };

/** The authorisation under `reference`: its record, its challenge's answer where it had one, and its void. */
async function authorisationOf(read: Read, reference: string, now: number): Promise<Found | undefined> {
  const [asked, challenge, voided] = await Promise.all([read(reference), read(`${reference}-3ds`), read(`${reference}-void`)]);
  if (asked?.op !== 'authorise') return undefined;
  const first = standing<AuthorisationOutcome>(asked, now);
  const answered = first.outcome?.kind === 'challenge' ? (challenge ? standing<AuthorisationOutcome>(challenge, now) : undefined) : first;
  const outcome = answered?.outcome;
  const status =
    outcome?.kind === 'approved' ? 'approved' : outcome?.kind === 'declined' || outcome?.kind === 'error' ? 'declined' : 'pending';
  const connectorRef = outcome && 'connectorRef' in outcome ? outcome.connectorRef : undefined;
  const release = voided?.op === 'void' ? standing<OperationOutcome>(voided, now) : undefined;
  // a challenge not answered waits for the gateway's own page: the sandbox never moves it by itself
  const waiting = first.outcome?.kind === 'challenge' && !challenge;
  return {
    reference,
    ...(connectorRef ? { connectorRef } : {}),
    status,
    ...(asked.amount !== undefined ? { amount: asked.amount } : {}),
    ...(asked.currency ? { currency: asked.currency } : {}),
    voided: release?.outcome?.ok === true,
    final: !first.inFlight && !answered?.inFlight && !release?.inFlight && (status !== 'pending' || waiting),
    ...(asked.capture !== undefined ? { capture: asked.capture } : {}),
  };
}

/**
 * The capture of the payment's authorisation: its `-cap` record when its marker names it (a record without the
 * marker never captured), else the authorisation itself when it was asked to capture (capture_mode auto).
 */
async function captureOf(
  ledger: SandboxLedgerView,
  read: Read,
  txn: string,
  current: Found | undefined,
  now: number,
): Promise<BookCapture> {
  const reference = `${txn}-cap`;
  const record = await read(reference);
  // a capture whose answer was lost, not acted on yet
  if (record?.op === 'capture' && record.acts_at !== undefined && now < record.acts_at)
    return { status: 'pending', amount: record.amount ?? 0, final: false };
  if (record?.op === 'capture') {
    // a record kept with its outcome (before records held the request) answers as it was kept
    if (record.outcome) {
      const ok = (record.outcome as OperationOutcome).ok;
      if (ok) return { status: 'succeeded', amount: record.amount ?? 0, final: true };
    } else if (record.connectorRef && (await ledger.lookup(ledger.captureMarker(record.connectorRef))) === reference) {
      return { status: 'succeeded', amount: record.amount ?? 0, final: true };
    }
  }
  if (current?.status === 'approved' && !current.voided) {
    if (current.capture === undefined) return { status: 'none', amount: 0, final: false };
    if (current.capture) return { status: 'succeeded', amount: current.amount ?? 0, final: true };
  }
  return { status: 'none', amount: 0, final: true };
}

async function refundOf(read: Read, reference: string, now: number): Promise<BookRefund | undefined> {
  const r = await read(reference);
  if (r?.op !== 'refund') return undefined;
  const { outcome, inFlight } = standing<OperationOutcome>(r, now);
  return {
    reference,
    ...(outcome?.ok ? { refundRef: outcome.connectorRef } : {}),
    amount: r.amount ?? 0,
    currency: r.currency ?? '',
    status: inFlight ? 'pending' : outcome?.ok ? 'succeeded' : 'failed',
    final: !inFlight,
  };
}

/** The one dispute of a payment of a dispute test card, once captured: as the acquirer decided it, or as it opened. */
async function disputesOf(ledger: SandboxLedgerView, current: Found | undefined, capture: BookCapture): Promise<BookDispute[]> {
  const connectorRef = current?.connectorRef;
  if (!connectorRef || capture.status !== 'succeeded') return [];
  const dispute = await ledger.dispute(connectorRef);
  return dispute ? [{ ...dispute, amount: capture.amount, final: true }] : [];
}
