import Stripe from 'stripe';
import type {
  AcquirerStatus,
  AuthorisationOutcome,
  CardAuthorisation,
  CardConnector,
  DisputeOperations,
  OperationOutcome,
} from '../../core/ports/card-connector.js';
import type { DisputeEvidence } from '../../core/records/dispute-record.js';
import { AcquirerJournal, AcquirerUnreachable, connectRefused, referenceKind } from '../../core/acquirers/journal.js';
import { REFERENCE_METADATA, declineReason, intentOutcome, paymentMethodOf } from './map.js';
import type { AcquirerBooks, PaymentReferences } from '../../core/ports/acquirer-books.js';
import { stripeBooks } from './books.js';
import { stripeWebhooks } from './webhooks.js';
import type { AcquirerWebhooks } from '../../core/ports/acquirer-webhooks.js';

export { REFERENCE_METADATA };

export interface StripeSettings {
  secretKey: string;
  /** the endpoint's signing secret (whsec_...): Stripe's webhooks to this account are checked with it */
  webhookSecret: string;
  /** a mock or stub in tests (docs/connectors.md `api_base`); unset: api.stripe.com */
  apiBase?: string;
  /** how long a request may take before its outcome counts as unknown */
  timeoutMs?: number;
  /** how long an empty metadata search is not a "no" (STRIPE_SEARCH_LAG_MS; a stub without lag: 0) */
  searchLagMs?: number;
}

/** Stripe's search index trails its objects (about a minute): an empty search before that is not a "no". */
export const STRIPE_SEARCH_LAG_MS = 60_000;

/**
 * How long Stripe keeps an Idempotency-Key (24 hours): within it, a request sent again under its key is
 * answered with the first request's result, or made once; past it, nothing sent under the key can still be
 * running at Stripe, so what a direct read of the intent and its refunds does not show was not done.
 */
export const STRIPE_IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * A card connector on Stripe's PaymentIntents, through the official `stripe` package. Every money-moving call
 * carries the operation's acquirer reference as Stripe's Idempotency-Key (Stripe answers a key it has seen
 * with its first response) and in the object's metadata (so `status` finds it by search when the answer was
 * lost). Authorisations are manual-capture intents; the gateway captures, voids and refunds them itself.
 */
export class StripeConnector implements CardConnector {
  readonly code = 'stripe';
  readonly displayName = 'Stripe';
  /** 3-D Secure on Stripe's page: with a return_url, Stripe answers next_action redirect_to_url */
  readonly ownChallengePage = true;
  /**
   * Stripe answers a request sent again under its Idempotency-Key with the first request's result, or makes it
   * once (409 while the first still runs): an operation whose answer was lost is settled by sending it again,
   * never by the absence of its effect in a read (docs/connectors.md)
   */
  readonly repeatIsStatus = true;
  /** Stripe's webhooks to this account, checked with its endpoint secret (docs/connectors.md) */
  readonly webhooks: AcquirerWebhooks;
  private readonly stripe: Stripe;
  private readonly testMode: boolean;

  constructor(
    private readonly settings: StripeSettings,
    readonly journal: AcquirerJournal,
    private readonly now: () => number,
  ) {
    const base = settings.apiBase ? new URL(settings.apiBase) : undefined;
    this.stripe = new Stripe(settings.secretKey, {
      // retries are the gateway's (the same reference, after its status): one request, one answer
      maxNetworkRetries: 0,
      timeout: settings.timeoutMs ?? 20_000,
      telemetry: false,
      ...(base
        ? {
            host: base.hostname,
            port: base.port || (base.protocol === 'http:' ? 80 : 443),
            protocol: base.protocol === 'http:' ? 'http' : 'https',
          }
        : {}),
    });
    this.webhooks = stripeWebhooks(this.stripe, settings.webhookSecret);
    this.testMode = settings.secretKey.startsWith('sk_test_') || settings.secretKey.startsWith('rk_test_');
  }

  async authorise(req: CardAuthorisation): Promise<AuthorisationOutcome> {
    const attempt = await this.journal.attempt(req.reference);
    const params: Stripe.PaymentIntentCreateParams = {
      amount: req.amount,
      currency: req.currency.toLowerCase(),
      // capture_mode auto: Stripe captures with the authorisation, as the gateway records it
      capture_method: req.capture ? 'automatic' : 'manual',
      confirm: true,
      ...paymentMethodOf(req, this.testMode),
      metadata: { [REFERENCE_METADATA]: req.reference },
      expand: ['latest_charge'],
      ...(req.recurring
        ? { off_session: true }
        : {
            payment_method_options: { card: { request_three_d_secure: req.threeDS === 'do3DS' && !req.mpi ? 'any' : 'automatic' } },
            // Stripe sends the shopper back here after its challenge, with payment_intent in the query
            ...(req.returnUrl ? { return_url: req.returnUrl } : {}),
          }),
    };
    try {
      const pi = await this.stripe.paymentIntents.create(params, { idempotencyKey: req.reference });
      await this.journal.object(req.reference, pi.id);
      return intentOutcome(pi, req.threeDS) ?? { kind: 'error', message: `stripe: payment intent ${pi.status}` };
    } catch (err) {
      return this.authorisationFailure(err, req.reference, attempt);
    }
  }

  /** A refusal Stripe gave (a decline, a request it refused) is an outcome; a lost answer is thrown: unknown. */
  private async authorisationFailure(err: unknown, reference: string, attempt: number): Promise<AuthorisationOutcome> {
    if (err instanceof Stripe.errors.StripeCardError) {
      const pi = err.payment_intent as Stripe.PaymentIntent | undefined;
      if (pi?.id) await this.journal.object(reference, pi.id);
      if (err.code === 'processing_error') return { kind: 'error', message: `stripe: ${err.message}` };
      return {
        kind: 'declined',
        connectorRef: pi?.id ?? '',
        reason: declineReason(err.decline_code || err.code),
        threedsResult: 'not performed',
      };
    }
    if (definiteRefusal(err)) return { kind: 'error', message: `stripe: ${(err as Error).message}` };
    if (connectRefused(err)) await this.journal.notReceived(reference, attempt);
    throw new AcquirerUnreachable('stripe', err);
  }

  /**
   * After the shopper's challenge at Stripe's page the intent has moved by itself: reading it is the answer.
   * An intent still waiting for the shopper has not been authenticated, so the challenge failed.
   */
  async completeChallenge(connectorRef: string, _code: string, reference: string): Promise<AuthorisationOutcome> {
    await this.journal.sending(reference);
    await this.journal.object(reference, connectorRef);
    const pi = await this.call(() => this.stripe.paymentIntents.retrieve(connectorRef, { expand: ['latest_charge'] }));
    const outcome = intentOutcome(pi, 'do3DS');
    if (outcome && outcome.kind !== 'challenge') return outcome;
    // back without finishing on Stripe's page: the intent is ended there, as a challenge the gateway ends is
    // (endChallenge), so the shopper's late answer on that page cannot authorise, or with automatic capture
    // charge, a payment the gateway records failed. An answer given meanwhile is the outcome.
    const ended = await this.endChallenge(connectorRef, reference.replace(/-3ds$/, '-void'));
    return ended ?? { kind: 'declined', connectorRef, reason: 'THREEDS_FAILED', threedsResult: 'authentication not completed' };
  }

  /**
   * Stripe authorises an intent on its own page once the shopper passes there, whether or not they come back:
   * a challenge the gateway ends is read first (an answer given meanwhile is the outcome), and an intent still
   * waiting is cancelled, so a late answer on Stripe's page finds nothing to authorise. Cancelling races the
   * shopper: Stripe refuses to cancel an intent that has just succeeded, and that intent's answer is then the
   * outcome. An intent already cancelled (an earlier call whose answer was lost) is ended. A cancel sent before
   * whose answer was lost may still be running at Stripe, and cancels an intent the shopper authorises meanwhile:
   * it is sent again under its key first, and its answer (409 while it runs: unknown) decides, never a read.
   */
  async endChallenge(connectorRef: string, reference: string): Promise<AuthorisationOutcome | undefined> {
    const answer = async (): Promise<AuthorisationOutcome | 'ended' | undefined> => {
      const pi = await this.call(() => this.stripe.paymentIntents.retrieve(connectorRef, { expand: ['latest_charge'] }));
      if (pi.status === 'canceled') return 'ended';
      const outcome = intentOutcome(pi, 'do3DS');
      return outcome?.kind === 'challenge' ? undefined : outcome;
    };
    const before = (await this.journal.mayHaveReached(reference)) ? undefined : await answer();
    if (before !== undefined) return before === 'ended' ? undefined : before;
    const voided = await this.void(connectorRef, reference);
    if (voided.ok) return undefined;
    const after = await answer();
    if (after !== undefined) return after === 'ended' ? undefined : after;
    throw new AcquirerUnreachable('stripe', `intent ${connectorRef} neither cancelled nor answered (${voided.message})`);
  }

  /**
   * Stripe's disputes (docs/disputes.md): Stripe reports them by webhook (charge.dispute.*, events.ts), so the gateway
   * watches no payment and asks for none. The merchant's evidence is sent as the dispute's evidence and
   * submitted at once (Stripe takes one submission); an acceptance closes the dispute at Stripe, which then
   * counts it lost. Each call carries its reference as the Idempotency-Key, so a retry acts once; Stripe's
   * refusal (a dispute already closed or submitted) is the answer, and an unreachable Stripe is thrown.
   */
  readonly disputes: DisputeOperations = {
    watches: () => false,
    since: () => Promise.resolve([]),
    submitEvidence: (disputeRef, evidence, reference) =>
      this.operation('dispute', reference, disputeRef, async () => {
        const dp = await this.stripe.disputes.update(
          disputeRef,
          { evidence: stripeEvidence(evidence), submit: true, metadata: { [REFERENCE_METADATA]: reference } },
          { idempotencyKey: reference },
        );
        return { ok: true, connectorRef: dp.id };
      }),
    accept: (disputeRef, reference) =>
      this.operation('dispute', reference, disputeRef, async () => {
        const dp = await this.stripe.disputes.close(disputeRef, {}, { idempotencyKey: reference });
        return { ok: true, connectorRef: dp.id };
      }),
  };

  capture(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome> {
    return this.operation('capture', reference, connectorRef, async () => {
      const pi = await this.stripe.paymentIntents.capture(
        connectorRef,
        { amount_to_capture: amount, metadata: { [`${REFERENCE_METADATA}_capture`]: reference } },
        { idempotencyKey: reference },
      );
      if (pi.currency !== currency.toLowerCase()) return { ok: false, message: `stripe: intent is in ${pi.currency.toUpperCase()}` };
      return pi.status === 'succeeded' ? { ok: true, connectorRef: pi.id } : { ok: false, message: `stripe: intent ${pi.status}` };
    });
  }

  void(connectorRef: string, reference: string): Promise<OperationOutcome> {
    return this.operation('void', reference, connectorRef, async () => {
      const pi = await this.stripe.paymentIntents.cancel(connectorRef, {}, { idempotencyKey: reference });
      return pi.status === 'canceled' ? { ok: true, connectorRef: pi.id } : { ok: false, message: `stripe: intent ${pi.status}` };
    });
  }

  refund(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome> {
    return this.operation('refund', reference, connectorRef, async () => {
      const refund = await this.stripe.refunds.create(
        { payment_intent: connectorRef, amount, metadata: { [REFERENCE_METADATA]: reference } },
        { idempotencyKey: reference },
      );
      if (refund.currency !== currency.toLowerCase()) return { ok: false, message: `stripe: refund in ${refund.currency.toUpperCase()}` };
      // pending is accepted: Stripe settles it later, and a later failure arrives as refund.failed
      return refund.status === 'failed' || refund.status === 'canceled'
        ? { ok: false, message: `stripe: refund ${refund.status}` }
        : { ok: true, connectorRef: refund.id };
    });
  }

  /**
   * A follow-up operation: a refusal Stripe gave is an outcome, a lost answer is thrown (unknown). Each attempt
   * is noted before it leaves, and one whose connection was refused is noted as never received.
   */
  private async operation(
    op: 'capture' | 'void' | 'refund' | 'dispute',
    reference: string,
    connectorRef: string,
    act: () => Promise<OperationOutcome>,
  ): Promise<OperationOutcome> {
    const [attempt] = await Promise.all([this.journal.attempt(reference), this.journal.object(reference, connectorRef)]);
    try {
      return await act();
    } catch (err) {
      if (definiteRefusal(err)) {
        const refused = { ok: false as const, message: `stripe: ${(err as Error).message}` };
        // Stripe's definite "not done" is kept: a read later shows nothing under the reference, which alone
        // would not tell a refused request from one still running
        if (op !== 'dispute') await this.journal.answered(reference, { op, outcome: refused });
        return refused;
      }
      if (connectRefused(err)) await this.journal.notReceived(reference, attempt);
      throw new AcquirerUnreachable('stripe', err);
    }
  }

  /**
   * What Stripe did under a reference, from Stripe's own objects: the intent (found by the id recorded when
   * Stripe answered, else by searching its metadata) and its refunds. "No record" only when it is definite: the
   * reference was never sent, or every attempt was refused at connect; an authorisation Stripe's search still
   * does not show once its lag has passed (docs/connectors.md); an operation whose effect a direct read does not
   * show once Stripe's idempotency window has passed, or that can no longer happen (a capture of a cancelled
   * intent, a void of a captured one). Any other absence may be a request still running at Stripe, or a list
   * that has not caught up: unknown (thrown), and the operation is sent again under its key, whose answer is
   * the status.
   */
  async status(reference: string): Promise<AcquirerStatus> {
    const sentAt = await this.journal.sentAt(reference);
    if (sentAt === undefined || !(await this.journal.mayHaveReached(reference))) return undefined;
    const kept = await this.journal.answer(reference);
    if (kept) return kept;
    const kind = referenceKind(reference);
    const authorisation = kind.op === 'authorise' || kind.op === 'challenge' ? reference : kind.transactionId;
    const id = (await this.journal.object(reference)) ?? (await this.journal.object(authorisation)) ?? (await this.search(authorisation));
    const age = this.now() - sentAt;
    if (!id) {
      if (age < (this.settings.searchLagMs ?? STRIPE_SEARCH_LAG_MS))
        throw new AcquirerUnreachable('stripe', 'its search has not caught up yet');
      return undefined;
    }
    const pi = await this.call(() => this.stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] }));
    const asked = { amount: pi.amount, currency: pi.currency.toUpperCase() };
    const settledByNow = age >= STRIPE_IDEMPOTENCY_WINDOW_MS;
    const running = (what: string): never => {
      throw new AcquirerUnreachable('stripe', `intent ${pi.id} is ${pi.status}: ${what} under ${reference} may still be running`);
    };
    switch (kind.op) {
      case 'authorise':
      case 'challenge': {
        const outcome = intentOutcome(pi);
        if (!outcome || (kind.op === 'challenge' && outcome.kind === 'challenge')) return undefined;
        return { op: 'authorise', outcome, ...asked };
      }
      case 'capture':
        if (pi.status === 'succeeded')
          return { op: 'capture', outcome: { ok: true, connectorRef: pi.id }, amount: pi.amount_received, currency: asked.currency };
        // a cancelled intent can never be captured; past the window the capture was not made
        return pi.status === 'canceled' || settledByNow ? undefined : running('a capture');
      case 'void':
        if (pi.status === 'canceled') return { op: 'void', outcome: { ok: true, connectorRef: pi.id } };
        return pi.status === 'succeeded' || settledByNow ? undefined : running('a cancellation');
      case 'refund': {
        const refunds = await this.call(() => this.stripe.refunds.list({ payment_intent: pi.id, limit: 100 }));
        const refund = refunds.data.find((r) => r.metadata?.[REFERENCE_METADATA] === reference);
        if (!refund) return settledByNow ? undefined : running('a refund');
        const ok = refund.status !== 'failed' && refund.status !== 'canceled';
        return {
          op: 'refund',
          outcome: ok ? { ok: true, connectorRef: refund.id } : { ok: false, message: `stripe: refund ${refund.status}` },
          amount: refund.amount,
          currency: refund.currency.toUpperCase(),
        };
      }
    }
  }

  /** The payment's intents, refunds and disputes at Stripe (CardConnector.books; books.ts). */
  books(refs: PaymentReferences): Promise<AcquirerBooks> {
    const searchLagMs = this.settings.searchLagMs ?? STRIPE_SEARCH_LAG_MS;
    return stripeBooks(refs, { stripe: this.stripe, journal: this.journal, search: (r) => this.search(r), searchLagMs, now: this.now });
  }

  private async search(reference: string): Promise<string | undefined> {
    const found = await this.call(() =>
      this.stripe.paymentIntents.search({ query: `metadata['${REFERENCE_METADATA}']:'${reference.replace(/'/g, "\\'")}'`, limit: 1 }),
    );
    return found.data[0]?.id;
  }

  /** A read: any failure is unknown. */
  private async call<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      throw new AcquirerUnreachable('stripe', err);
    }
  }
}

/**
 * Stripe refused the request itself (a 4xx but a rate limit or a conflict): nothing was done. A timeout, a
 * dropped connection, a 5xx, a 429 or an idempotency error (409: the first request under the key is still
 * running; 400 `idempotency_error`: the key was used before, so its first request was made) may hide an
 * action, so they are thrown as unknown.
 */
function definiteRefusal(err: unknown): boolean {
  if (!(err instanceof Stripe.errors.StripeError)) return false;
  if (err instanceof Stripe.errors.StripeConnectionError || err instanceof Stripe.errors.StripeIdempotencyError) return false;
  if (err.type === 'idempotency_error') return false;
  const status = err.statusCode ?? 0;
  return status >= 400 && status < 500 && status !== 409 && status !== 429;
}

/**
 * The gateway's evidence as Stripe's text fields. Stripe's customer_communication is a file upload, not text:
 * the merchant's text of it goes first in uncategorized_text, under its own heading. Empty fields are not sent.
 */
export function stripeEvidence(e: DisputeEvidence): Stripe.DisputeUpdateParams.Evidence {
  const other = [e.customer_communication ? `Customer communication:\n${e.customer_communication}` : '', e.uncategorized_text].filter(
    Boolean,
  );
  return {
    ...(e.product_description ? { product_description: e.product_description } : {}),
    ...(e.shipping_tracking ? { shipping_tracking_number: e.shipping_tracking } : {}),
    ...(other.length > 0 ? { uncategorized_text: other.join('\n\n') } : {}),
  };
}
