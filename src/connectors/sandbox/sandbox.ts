import type { Clock, IdGenerator } from '../../core/kernel/clock.js';
import { fromAcquirerAmount } from '../../core/kernel/money.js';
import type { AcquirerLedger } from '../../core/ports/acquirer-ledger.js';
import type { AcquirerBooks, PaymentReferences } from '../../core/ports/acquirer-books.js';
import { sandboxBooks } from './sandbox-books.js';
import type {
  AcquirerStatus,
  AuthorisationOutcome,
  CardAuthorisation,
  CardConnector,
  DeclineReason,
  DisputeOperations,
  OperationOutcome,
} from '../../core/ports/card-connector.js';
import { AcquirerUnreachable } from '../../core/acquirers/journal.js';
import { PROCESSING_MS, TIMED_CARDS, entryAt, timedFields, timedPlanOf, type TimedEntry } from './sandbox-cards.js';
import { DISPUTE_CARDS, sandboxDisputeStanding, sandboxDisputes } from './sandbox-disputes.js';

/** Test cards of docs/api.md#test-cards-and-risk-triggers. Any other valid number is approved. */
const DECLINES: Record<string, DeclineReason> = {
  '4000000000000002': 'DECLINED',
  '4000000000009995': 'INSUFFICIENT_FUNDS',
  '4000000000000069': 'EXPIRED_CARD',
};
const PROCESSING_ERROR = '4000000000000119';
const CHALLENGE = '4000002500003155';
export const SANDBOX_CHALLENGE_CODE = '123456';
/** threeds_result of a challenge answered with another code than SANDBOX_CHALLENGE_CODE */
export const SANDBOX_CODE_REFUSED = 'authentication failed (challenge)';

/**
 * Operation failures on demand (docs/operations.md): a capture or refund of an amount whose cents are 13
 * (1.13, 10.13, ...) is refused, and so is a void of an authorisation made for such an amount.
 */
const FAILING_CENTS = 13;
const VOID_FAILS = 'sbxvf';
const failsFor = (amount: number, currency: string): boolean => fromAcquirerAmount(amount, currency) % 100 === FAILING_CENTS;

/**
 * The sandbox acquirer: deterministic answers from the test cards, no network. Like a real acquirer it
 * keeps a ledger keyed by the gateway's reference: the same reference asked again gets the first answer, so
 * a retry after a crash never captures, voids, refunds or charges twice; `status` reads the ledger. A second
 * capture of one authorisation under another reference is refused, as an acquirer would.
 */
export class SandboxConnector implements CardConnector {
  readonly code = 'sandbox';
  readonly displayName = 'Sandbox';

  /** the sandbox as it serves each merchant: its ledger's records in the merchant's slot (forMerchant) */
  private readonly perMerchant = new Map<string, SandboxConnector>();

  constructor(
    private ids: IdGenerator,
    private ledger: AcquirerLedger,
    /** the sandbox's time: its timed test cards change their answers with it (sandbox-cards.ts) */
    private readonly clock: Clock,
    /** the ledger is the one the gateway's store keeps for a merchant (forMerchant): its records can ride in the store's commits */
    private readonly inStore = false,
  ) {}

  /** The sandbox as a test clock's payments see it: the same ledger, in the clock's time. */
  onClock(clock: Clock): SandboxConnector {
    return new SandboxConnector(this.ids, this.ledger, clock, this.inStore);
  }

  /**
   * The sandbox for one merchant's payments: the same acquirer, its records kept beside the merchant's
   * payments (AcquirerLedger.ledgerOf), so a Redis node's death takes or keeps both together.
   */
  forMerchant(merchantId: string): SandboxConnector {
    if (!this.ledger.ledgerOf) return this;
    let scoped = this.perMerchant.get(merchantId);
    if (!scoped)
      this.perMerchant.set(merchantId, (scoped = new SandboxConnector(this.ids, this.ledger.ledgerOf(merchantId), this.clock, true)));
    return scoped;
  }

  /**
   * Acts once per reference: the first recorded answer wins, also between processes. The record keeps what
   * was asked (operation, amount, currency, authorisation) beside the answer, and a reference asked again with
   * other parameters is refused, as an acquirer refuses a reused idempotency key: it never answers a different
   * request with the first one's result. A timed test card's record is answered as it stands at the sandbox's
   * time (sandbox-cards.ts); the caller whose record it is, on the lost-answer card, loses its answer.
   */
  private async once<O>(request: Asked, reference: string, act: () => O, timed: Partial<TimedEntry> = {}): Promise<O> {
    const mark = timed.acts_at !== undefined ? this.ids.opaque('sbxmark') : undefined;
    const entry = { ...request, outcome: act(), ...timed, ...(mark ? { mark } : {}) };
    // one round trip: the put-if-absent answers the first record, whether it is this one or an earlier one
    const first = JSON.parse(await this.ledger.ledgerRecord(reference, JSON.stringify(entry))) as Asked & TimedEntry;
    if (!sameRequest(first, request))
      return (
        request.op === 'authorise' ? { kind: 'error', message: reuseMessage(request.op) } : { ok: false, message: reuseMessage(request.op) }
      ) as O;
    if (mark !== undefined && first.mark === mark) throw new AcquirerUnreachable('sandbox', 'the answer was lost (lost-answer test card)');
    return entryAt<O>(first, this.clock.now());
  }

  authorise(req: CardAuthorisation): Promise<AuthorisationOutcome> {
    const { outcome, timed } = this.decision(req);
    const asked = { op: 'authorise' as const, amount: req.amount, currency: req.currency, capture: req.capture === true };
    return this.once(asked, req.reference, () => outcome, timed);
  }

  /**
   * The authorisation decided, its ledger record handed back to travel in the outcome's commit
   * (CardConnector.authoriseInCommit) instead of a write of its own: one store round trip fewer an
   * authorisation. The record is the one `authorise` keeps; should one be there already, the commit fails and
   * the gateway asks through `authorise`, which answers the first. Not for the lost-answer card, whose answer
   * is lost by the call that makes its record.
   */
  async authoriseInCommit(
    req: CardAuthorisation,
  ): Promise<{ outcome: AuthorisationOutcome; record: { reference: string; data: string } } | undefined> {
    if (!this.inStore || TIMED_CARDS[req.pan]?.lostAnswer) return undefined;
    const { outcome, timed } = this.decision(req);
    const data = JSON.stringify({
      op: 'authorise',
      amount: req.amount,
      currency: req.currency,
      capture: req.capture === true,
      outcome,
      ...timed,
    });
    return { outcome, record: { reference: req.reference, data } };
  }

  /** The outcome of an authorisation, and what a timed card adds to its record. */
  private decision(req: CardAuthorisation): { outcome: AuthorisationOutcome; timed: Partial<TimedEntry> } {
    const outcome = this.decide(req);
    const timedCard = TIMED_CARDS[req.pan];
    if (!timedCard || outcome.kind === 'error' || outcome.kind === 'challenge') return { outcome, timed: {} };
    const now = this.clock.now();
    if (timedCard.processing && outcome.kind === 'approved') {
      const then: AuthorisationOutcome =
        timedCard.processing === 'approved'
          ? outcome
          : { kind: 'declined', connectorRef: outcome.connectorRef, reason: 'DECLINED', threedsResult: outcome.threedsResult };
      return { outcome: { kind: 'pending', connectorRef: outcome.connectorRef }, timed: { decides_at: now + PROCESSING_MS, then } };
    }
    return { outcome, timed: timedFields(timedCard, 'authorise', now) };
  }

  private decide(req: CardAuthorisation): AuthorisationOutcome {
    const prefix = failsFor(req.amount, req.currency)
      ? VOID_FAILS
      : (DISPUTE_CARDS[req.pan]?.prefix ?? TIMED_CARDS[req.pan]?.prefix ?? 'sbx');
    const ref = this.ids.opaque(prefix);
    if (req.pan === PROCESSING_ERROR) return { kind: 'error', message: 'sandbox: processing error' };
    const decline = DECLINES[req.pan];
    const mpiDone = Boolean(req.mpi?.cavv || req.mpi?.eci);
    if (req.pan === CHALLENGE && req.threeDS === 'do3DS' && !mpiDone && !req.recurring) {
      return { kind: 'challenge', connectorRef: `${ref}_3ds` };
    }
    const threedsResult = mpiDone
      ? 'authenticated externally'
      : req.threeDS === 'do3DS' && !req.recurring
        ? 'authenticated (frictionless)'
        : 'not performed';
    if (decline) return { kind: 'declined', connectorRef: ref, reason: decline, threedsResult };
    return { kind: 'approved', connectorRef: ref, threedsResult };
  }

  completeChallenge(connectorRef: string, code: string, reference: string): Promise<AuthorisationOutcome> {
    return this.once({ op: 'authorise' as const, connectorRef }, reference, (): AuthorisationOutcome =>
      !connectorRef.endsWith('_3ds')
        ? { kind: 'error', message: 'sandbox: no challenge for this reference' }
        : code === SANDBOX_CHALLENGE_CODE
          ? { kind: 'approved', connectorRef, threedsResult: 'authenticated (challenge passed)' }
          : { kind: 'declined', connectorRef, reason: 'THREEDS_FAILED', threedsResult: SANDBOX_CODE_REFUSED },
    );
  }

  async capture(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome> {
    if (failsFor(amount, currency)) return { ok: false, message: 'sandbox: capture refused (amount cents 13)' };
    // one round trip, both writes sent together: the authorisation's capture marker (the first reference
    // to capture it; another one is a second capture) and this reference's record. The record holds the
    // request, not the outcome, so it need not wait for the marker: the outcome is read from the marker.
    const request: CaptureRecord = { op: 'capture', connectorRef, amount, currency };
    const timed = timedFields(timedPlanOf(connectorRef), 'capture', this.clock.now());
    const mark = timed.acts_at !== undefined ? this.ids.opaque('sbxmark') : undefined;
    const [marker, kept] = await Promise.all([
      this.ledger.ledgerRecord(captureMarker(connectorRef), reference),
      this.ledger.ledgerRecord(reference, JSON.stringify({ ...request, ...timed, ...(mark ? { mark } : {}) })),
    ]);
    const first = JSON.parse(kept) as CaptureRecord;
    if (!sameRequest(first, request)) return { ok: false, message: reuseMessage('capture') };
    if (mark !== undefined && first.mark === mark) throw new AcquirerUnreachable('sandbox', 'the answer was lost (lost-answer test card)');
    if (first.acts_at !== undefined && this.clock.now() < first.acts_at) return entryAt(first as TimedEntry, this.clock.now());
    return captureOutcome(marker, reference, connectorRef);
  }

  /**
   * The capture decided, its two records (the authorisation's capture marker and the reference's request)
   * handed back to travel in the capture's commit (CardConnector.captureInCommit): one store round trip fewer
   * a captured order. Either record there already fails that commit; `capture` then answers from them.
   */
  async captureInCommit(
    connectorRef: string,
    amount: number,
    currency: string,
    reference: string,
  ): Promise<{ outcome: OperationOutcome; records: { reference: string; data: string }[] } | undefined> {
    if (!this.inStore || timedPlanOf(connectorRef)?.lostAnswer) return undefined;
    if (failsFor(amount, currency)) return { outcome: { ok: false, message: 'sandbox: capture refused (amount cents 13)' }, records: [] };
    const request: CaptureRecord = { op: 'capture', connectorRef, amount, currency };
    return {
      outcome: { ok: true, connectorRef },
      records: [
        { reference: captureMarker(connectorRef), data: reference },
        { reference, data: JSON.stringify(request) },
      ],
    };
  }

  void(connectorRef: string, reference: string): Promise<OperationOutcome> {
    if (connectorRef.startsWith(`${VOID_FAILS}_`))
      return Promise.resolve({ ok: false, message: 'sandbox: void refused (authorised amount cents 13)' });
    const timed = timedFields(timedPlanOf(connectorRef), 'void', this.clock.now());
    return this.once({ op: 'void' as const, connectorRef }, reference, (): OperationOutcome => ({ ok: true, connectorRef }), timed);
  }

  refund(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome> {
    if (failsFor(amount, currency)) return Promise.resolve({ ok: false, message: 'sandbox: refund refused (amount cents 13)' });
    const timed = timedFields(timedPlanOf(connectorRef), 'refund', this.clock.now());
    return this.once(
      { op: 'refund' as const, connectorRef, amount, currency },
      reference,
      (): OperationOutcome => ({ ok: true, connectorRef: `${connectorRef}_rf_${reference}` }),
      timed,
    );
  }

  /** The sandbox's disputes (sandbox-disputes.ts), in the sandbox's time. */
  readonly disputes: DisputeOperations = sandboxDisputes(
    {
      ledgerRecord: (key: string, value: string) => this.ledger.ledgerRecord(key, value),
      ledgerLookup: (key: string) => this.ledger.ledgerLookup(key),
    },
    { now: () => this.clock.now() },
    (request: Asked, reference: string, act: () => OperationOutcome) => this.once(request, reference, act),
  );

  /** The payment's records in the ledger (CardConnector.books): sandbox-books.ts reads them. */
  books(refs: PaymentReferences): Promise<AcquirerBooks> {
    return sandboxBooks(refs, {
      lookup: (reference) => this.ledger.ledgerLookup(reference),
      now: () => this.clock.now(),
      captureMarker,
      dispute: (connectorRef) => sandboxDisputeStanding((key) => this.ledger.ledgerLookup(key), connectorRef, this.clock.now()),
    });
  }

  async status(reference: string): Promise<AcquirerStatus> {
    const kept = await this.ledger.ledgerLookup(reference);
    if (!kept) return undefined;
    const record = JSON.parse(kept) as LedgerEntry | CaptureRecord;
    const asked = (r: { amount?: number; currency?: string }) =>
      r.amount === undefined ? {} : { amount: r.amount, ...(r.currency ? { currency: r.currency } : {}) };
    const now = this.clock.now();
    // a capture recorded with its outcome (before records held the request) answers as it was kept; a timed test
    // card's record as it stands now (still running: thrown)
    if (record.op !== 'capture' || 'outcome' in record)
      return { op: record.op, outcome: entryAt(record as TimedEntry, now), ...asked(record) } as AcquirerStatus;
    if (record.acts_at !== undefined) entryAt(record as TimedEntry, now);
    const marker = await this.ledger.ledgerLookup(captureMarker(record.connectorRef));
    // no marker: the acquirer never took this capture (a record alone cannot capture), so it may be asked again
    return marker === undefined
      ? undefined
      : { op: 'capture', outcome: captureOutcome(marker, reference, record.connectorRef), ...asked(record) };
  }
}

/** What the sandbox keeps of a capture under its reference: the request; the outcome is its marker's. */
interface CaptureRecord {
  op: 'capture';
  connectorRef: string;
  amount: number;
  currency: string;
  /** the lost-answer card: acted on only then (sandbox-cards.ts) */
  acts_at?: number;
  mark?: string;
}

/** The ledger key of an authorisation's capture marker: the reference that captured it first. */
const captureMarker = (connectorRef: string): string => `${connectorRef}#capture`;

function captureOutcome(marker: string, reference: string, connectorRef: string): OperationOutcome {
  return marker === reference ? { ok: true, connectorRef } : { ok: false, message: 'sandbox: authorisation already captured' };
}

/**
 * What the sandbox keeps under a reference: what was asked, and the first answer (and when it changes: TimedEntry).
 * An authorisation's `capture`: it captured too (CardAuthorisation.capture); absent in records kept before it was.
 */
type LedgerEntry = (
  | { op: 'authorise'; outcome: AuthorisationOutcome; amount?: number; currency?: string; connectorRef?: string; capture?: boolean }
  | { op: 'capture' | 'void' | 'refund'; outcome: OperationOutcome; amount?: number; currency?: string; connectorRef?: string }
) &
  Omit<Partial<TimedEntry>, 'op' | 'outcome'>;

type Asked = { op: string; amount?: number; currency?: string; connectorRef?: string; capture?: boolean };

/** The same request again (a retry), not another one under a used reference. Records written before they kept the request match any. */
function sameRequest(kept: Asked, asked: Asked): boolean {
  if (kept.op !== asked.op) return false;
  if (kept.amount !== undefined && kept.amount !== asked.amount) return false;
  if (kept.currency !== undefined && kept.currency !== asked.currency) return false;
  return kept.connectorRef === undefined || asked.connectorRef === undefined || kept.connectorRef === asked.connectorRef;
}

const reuseMessage = (op: string): string => `sandbox: reference already used for another ${op} request`;
