import type { BrowserInfo } from '../records/payment.js';
import type { Clock } from '../kernel/clock.js';
import type { DisputeEvidence, DisputeReason } from '../records/dispute-record.js';
import type { AcquirerBooks, PaymentReferences } from './acquirer-books.js';

export type { BrowserInfo };

/**
 * What the gateway asks of an acquirer. Each connector maps its own answers into these outcomes, so a real
 * acquirer is one more module beside the sandbox.
 */
export interface CardAuthorisation {
  /** the acquirer reference of this authorisation: the same for every attempt at it (claim.ts) */
  reference: string;
  pan: string;
  expMonth: string;
  expYear: string;
  /** absent for token and recurring charges */
  securityCode?: string;
  /** in the currency's own minor units (ISO 4217 exponent: JPY 0, USD 2, KWD 3), see kernel/money.ts */
  amount: number;
  currency: string;
  /** do3DS asks for authentication; no3DS goes straight to authorisation */
  threeDS: 'do3DS' | 'no3DS';
  /** results of a 3-D Secure done elsewhere (additional_information.mpi_info) */
  mpi?: { eci?: string; cavv?: string; xid?: string; dsTransID?: string };
  recurring?: boolean;
  /**
   * capture with the authorisation (capture_mode auto, not held for review): the gateway records the payment
   * captured on approval, so an acquirer that separates the two captures at once (the sandbox's approval is both)
   */
  capture?: boolean;
  /** the shopper's browser (hosted card page only) */
  browser?: BrowserInfo;
  /**
   * where an acquirer that runs its own challenge page sends the shopper back after it (the payment's challenge
   * return address); set for connectors with `ownChallengePage`
   */
  returnUrl?: string;
}

/** SUSPECTED_FRAUD: the issuer or the acquirer's fraud screening refused it (a lost or stolen card, fraud rules) */
export type DeclineReason = 'DECLINED' | 'INSUFFICIENT_FUNDS' | 'EXPIRED_CARD' | 'THREEDS_FAILED' | 'SUSPECTED_FRAUD';

export type AuthorisationOutcome =
  | { kind: 'approved'; connectorRef: string; threedsResult: string }
  | { kind: 'declined'; connectorRef: string; reason: DeclineReason; threedsResult: string }
  /** `redirectUrl`: where an acquirer that runs its own challenge page sends the shopper (Stripe, Adyen) */
  | { kind: 'challenge'; connectorRef: string; redirectUrl?: string }
  /**
   * The acquirer took the authorisation and decides later (a Stripe intent `processing`, Adyen `Received` or
   * `Pending`, the sandbox's processing test cards): neither an approval nor a decline. The payment stays
   * pending under its claim until the acquirer's webhook, or its status read by recovery, gives the outcome.
   */
  | { kind: 'pending'; connectorRef: string }
  | { kind: 'error'; message: string };

export type OperationOutcome = { ok: true; connectorRef: string } | { ok: false; message: string };

/**
 * What an acquirer has recorded under a reference: the first answer it gave, with the amount (minor units) and
 * currency it was asked for where the operation moves an amount; undefined only when it definitely never acted.
 * A read that may trail the acquirer's own state (a search index, a list that a request still in flight has not
 * reached yet) is never that "no": a status that cannot be told throws instead (an unknown outcome), and the
 * operation is settled by the acquirer's definite word (its answer to the same request sent again under its
 * reference, docs/connectors.md).
 */
export type AcquirerStatus =
  | { op: 'authorise'; outcome: AuthorisationOutcome; amount?: number; currency?: string }
  | { op: 'capture' | 'void' | 'refund'; outcome: OperationOutcome; amount?: number; currency?: string }
  | undefined;

/**
 * Every call carries a reference derived from the operation, not the attempt (claim.ts builds them): the same
 * operation asked again after a crash or a timeout gets the acquirer's first answer, and money moves once.
 * Amounts are in the currency's own minor units.
 */
export interface CardConnector {
  readonly code: string;
  /** name shown in answers (`connector`) */
  readonly displayName: string;
  authorise(req: CardAuthorisation): Promise<AuthorisationOutcome>;
  /** Finishes a 3-D Secure challenge started by authorise. */
  completeChallenge(connectorRef: string, code: string, reference: string): Promise<AuthorisationOutcome>;
  capture(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome>;
  void(connectorRef: string, reference: string): Promise<OperationOutcome>;
  refund(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome>;
  /** What the acquirer did under a reference: how the gateway resolves an outcome it did not record. */
  status(reference: string): Promise<AcquirerStatus>;
  /**
   * An acquirer whose records live in the gateway's own store (the sandbox) may decide an authorisation
   * without writing anything: its record (what a call of `authorise` would have kept under the reference)
   * is then written in the same commit as the payment's outcome (ChangeSet.acquirerRecords). docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery holds:
   * the claim is durable before it is asked, and the acquirer's record and the outcome become durable in one
   * step, so neither is ever kept without the other. undefined: this connector cannot; call `authorise`.
   */
  authoriseInCommit?(
    req: CardAuthorisation,
  ): Promise<{ outcome: AuthorisationOutcome; record: { reference: string; data: string } } | undefined>;
  /**
   * As authoriseInCommit, for a capture: the outcome decided without writing, with the records `capture` would
   * have kept, written in the same commit as the payment's capture. A record already there fails that commit:
   * the gateway then asks through `capture`, which answers from what is kept.
   */
  captureInCommit?(
    connectorRef: string,
    amount: number,
    currency: string,
    reference: string,
  ): Promise<{ outcome: OperationOutcome; records: { reference: string; data: string }[] } | undefined>;
  /** This connector for one merchant's payments, where it keeps something per merchant (the sandbox's ledger). */
  forMerchant?(merchantId: string): CardConnector;
  /**
   * This connector in a test clock's time, where its answers change with time (the sandbox's timed test cards):
   * a clock's payments are decided in the clock's time, as every other step of theirs.
   */
  onClock?(clock: Clock): CardConnector;
  /**
   * True when the acquirer answers a request sent again under its reference (its idempotency key) with its
   * first answer, acting at most once, while `status` may have to say "unknown" (Adyen cannot be asked by
   * reference; Stripe's reads may trail a request still running): an operation whose outcome is unknown is then
   * settled by sending it again under the same reference (recovery does for captures, voids, refunds and
   * subscription charges; the merchant's retry does for an order, which carries the card again), and the
   * acquirer's answer to that repeat is the status.
   */
  readonly repeatIsStatus?: boolean;
  /**
   * True when the acquirer runs the 3-D Secure challenge on its own page (a challenge outcome's `redirectUrl`):
   * the payment's challenge address is made before it is asked, so the acquirer can be told where to send the
   * shopper back (CardAuthorisation.returnUrl). The sandbox's challenge is the gateway's own page.
   */
  readonly ownChallengePage?: boolean;
  /**
   * For an acquirer that finishes a 3-D Secure challenge on its own page by itself (Stripe: the intent is
   * authorised there, whether or not the shopper comes back): ends at the acquirer a challenge the gateway ends
   * (expired, or given up on the gateway's page), under `reference` (the authorisation's void). The acquirer's
   * own answer when the shopper gave one there meanwhile; undefined once the authorisation is cancelled, so no
   * later answer there can authorise it. Throws when the acquirer's state cannot be read or moved: unknown.
   * Absent where the gateway finishes the challenge itself (the sandbox; Adyen authorises only on the
   * gateway's details call), so nothing at the acquirer outlives a challenge the gateway ended.
   */
  endChallenge?(connectorRef: string, reference: string): Promise<AuthorisationOutcome | undefined>;
  /** Disputes (docs/disputes.md); absent where the connector does not offer them (the gateway then opens none itself). */
  readonly disputes?: DisputeOperations;
  /**
   * The acquirer's own records of one payment's money, read by reconciliation (core/reconcile) to compare with
   * the gateway's. A read only: it moves nothing. Throws when the acquirer cannot be read (the payment is then
   * looked at again on a later pass). Absent: this connector's payments are not reconciled.
   */
  books?(payment: PaymentReferences): Promise<AcquirerBooks>;
}

/**
 * A dispute as the acquirer reports it. `status` is the acquirer's view where it has one: an opened dispute
 * (`inquiry` or `needs_response`), evidence it has (`under_review`: sent through the gateway, or at the
 * acquirer directly), or its decision (`won`, `lost`) once it has made one.
 */
export interface AcquirerDispute {
  /** the acquirer's own name of the dispute */
  disputeRef: string;
  reason: DisputeReason;
  status: 'inquiry' | 'needs_response' | 'under_review' | 'won' | 'lost';
  /** the currency's own minor units, as every amount at the connector boundary; absent: the captured amount */
  amount?: number;
  /**
   * The acquirer's last moment for the merchant's answer (ms), where it says one (Stripe's `due_by`, Adyen's
   * `defensePeriodEndsAt`): the dispute's due_date. Absent: the gateway's own window (docs/disputes.md's 7 days).
   */
  dueAt?: number;
  /**
   * The report's place in the dispute's story at the acquirer, where its events give one (Stripe: the event's
   * time; Adyen: the stage its event code stands for); greater is later. Webhooks arrive in any order: a report
   * from earlier in the story than one already applied changes nothing.
   */
  order?: number;
  /**
   * The report closes a dispute still open and never reverses a decision: an inquiry closed without a
   * chargeback (Stripe's `warning_closed`, which is also how Stripe reports an inquiry the merchant accepted;
   * Adyen's lapsed inquiry), a dispute prevented. On a decided dispute it changes nothing.
   */
  openOnly?: boolean;
  /**
   * From an acquirer the gateway asks rather than one that reports by webhook (the sandbox): when its next
   * move on this dispute falls due (a decision it will reverse). The gateway asks it again then.
   */
  askAgainAt?: number;
}

/**
 * The dispute operations of docs/disputes.md. A connector that learns of disputes by its acquirer's webhooks
 * reports them to the core (disputes/report.ts, reportAcquirerDispute) and may answer `since` with nothing;
 * the sandbox, which has no webhooks, is asked.
 */
export interface DisputeOperations {
  /**
   * True when a payment captured under `connectorRef` may be disputed and the gateway should ask `since`
   * after its capture (the sandbox's dispute test cards). Cheap and local: asked on every capture.
   */
  watches(connectorRef: string): boolean;
  /**
   * The disputes the acquirer has on the payment authorised under `connectorRef`, opened since `since` (ms), as
   * they stand now. The sandbox, which has no webhooks, makes its time-driven moves (a due date passed, a
   * decision reversed) in its own time, a test clock's for a clock's payments, when it is asked.
   */
  since(connectorRef: string, since: number): Promise<AcquirerDispute[]>;
  /** Sends the evidence of a dispute under `reference` (the same reference again answers the first result). */
  submitEvidence(disputeRef: string, evidence: DisputeEvidence, reference: string): Promise<OperationOutcome>;
  /** Accepts a dispute (the merchant gives the amount up) under `reference`. */
  accept(disputeRef: string, reference: string): Promise<OperationOutcome>;
}

/** The account a connector serves: its merchant (the sandbox's ledger scope) and its own settings. */
export interface ConnectorAccount {
  merchant_id: string;
  account_id: string;
}

export interface ConnectorRegistry {
  /**
   * The connector named `code`; with `account`, as it serves that account's payments: a shared connector
   * scoped to the merchant (forMerchant), or the instance made for the account with its own credentials
   * (an acquirer such as Stripe or Adyen).
   */
  get(code: string, account?: ConnectorAccount): CardConnector | undefined;
}

/** The key of an account's own connector instance. */
export const connectorAccountKey = (a: ConnectorAccount): string => `${a.merchant_id}\u0000${a.account_id}`;

/**
 * `shared`: connectors every account of their code uses (the sandbox), looked up first so their path costs
 * what it did; `perAccount`: instances configured for one account each, by connectorAccountKey.
 */
export function connectorRegistry(shared: CardConnector[], perAccount: ReadonlyMap<string, CardConnector> = new Map()): ConnectorRegistry {
  const map = new Map(shared.map((c) => [c.code, c]));
  return {
    get: (code, account) => {
      const c = map.get(code);
      if (c) return account !== undefined && c.forMerchant ? c.forMerchant(account.merchant_id) : c;
      const own = account && perAccount.get(connectorAccountKey(account));
      return own?.code === code ? own : undefined;
    },
  };
}
