import { AcquirerStub, type StubAnswer, type StubRequest } from './stub-server.js';
import { StripeDisputeLife, type StripeDisputeTimes } from './stripe-dispute-life.js';

/**
 * A stub of Stripe's API for the calls the Stripe connector makes, written from Stripe's API reference:
 * PaymentIntents (create and confirm, retrieve, capture, cancel, search by metadata), refunds (create, list),
 * disputes (update, close, list by payment_intent),
 * form-encoded requests, Idempotency-Key, errors as `{ error: { type, code, decline_code, message } }`.
 * Its own records (`intents`, `refunds`, `captures`) are what the tests count: never two charges or
 * captures for one reference.
 */

export interface Intent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  status: string;
  capture_method: string;
  metadata: Record<string, string>;
  last_payment_error: { code?: string; decline_code?: string; message: string } | null;
  next_action: { type: string; redirect_to_url?: { url: string; return_url: string } } | null;
  latest_charge: string | null;
  /** the test: which card behaviour this intent has */
  card: string;
  /** the test: when Stripe made it (its clock, ms), and from when its search shows it */
  created: number;
  searchableAt: number;
}

export interface Dispute {
  id: string;
  object: 'dispute';
  amount: number;
  currency: string;
  payment_intent: string;
  reason: string;
  status: string;
  evidence: Record<string, string>;
  /** due_by: the last moment for evidence (unix seconds), where the test gives one */
  evidence_details: { submission_count: number; due_by?: number };
  metadata: Record<string, string>;
}

export interface Refund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  status: string;
  failure_reason?: string;
  metadata: Record<string, string>;
  /** the test: from when the refunds list shows it (Stripe's clock, ms) */
  listedAt: number;
}

/**
 * How the stub's Stripe behaves over time, beyond answering at once (all off by default): intents that stay
 * `processing` for a while before they succeed or fail, refunds `pending` before they succeed or fail, and a
 * search and a refunds list that show an object only some time after it was made. Each is decided per object
 * from its amount (minor units) and the stub's own sequence, so a seeded run replays.
 */
export interface StripeTimes {
  /** an intent Stripe keeps `processing` for `ms`, then approves (`approve`) or declines */
  processing?: (amount: number) => { ms: number; approve: boolean } | undefined;
  /** a refund Stripe keeps `pending` for `ms`, then makes (`succeeds`) or fails */
  refundPending?: (amount: number) => { ms: number; succeeds: boolean } | undefined;
  /** how long after an intent is made Stripe's search shows it */
  searchLagMs?: (n: number) => number;
  /** how long after a refund is made the refunds list shows it */
  listLagMs?: (n: number) => number;
  /** disputes carried through time (deadline, decisions, reversals); unset: decided on the next events call */
  disputes?: StripeDisputeTimes;
}

/** Stripe's test payment methods and test card numbers, as Stripe answers them. */
/** The disputes Stripe's dispute test cards open once their charge succeeds. */
const DISPUTE_CARDS: Record<string, { reason: string; status: 'warning_needs_response' | 'needs_response' }> = {
  pm_card_createDispute: { reason: 'fraudulent', status: 'needs_response' },
  pm_card_createDisputeProductNotReceived: { reason: 'product_not_received', status: 'needs_response' },
  pm_card_createDisputeInquiry: { reason: 'general', status: 'warning_needs_response' },
};

const BEHAVIOUR: Record<string, string> = {
  pm_card_visa: 'approve',
  pm_card_mastercard: 'approve',
  pm_card_chargeDeclined: 'generic_decline',
  pm_card_chargeDeclinedInsufficientFunds: 'insufficient_funds',
  pm_card_chargeDeclinedExpiredCard: 'expired_card',
  pm_card_chargeDeclinedProcessingError: 'processing_error',
  pm_card_authenticationRequired: '3ds',
  pm_card_createDispute: 'approve',
  pm_card_createDisputeProductNotReceived: 'approve',
  pm_card_createDisputeInquiry: 'approve',
  '4242424242424242': 'approve',
  '4000000000000002': 'generic_decline',
  '4000002500003155': '3ds',
  '4100000000000019': 'fraudulent',
};

/** Stripe's form encoding (`a[b][c]=v`, `a[0]=v`) read back into objects. */
export function parseStripeForm(raw: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node = out;
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    }
  }
  return out;
}

const error = (status: number, type: string, message: string, extra: Record<string, unknown> = {}): StubAnswer => ({
  status,
  body: { error: { type, message, ...extra } },
});

export class StripeStub extends AcquirerStub {
  readonly intents = new Map<string, Intent>();
  readonly refunds = new Map<string, Refund>();
  /** every capture Stripe made: [intent id, amount] */
  readonly captures: [string, number][] = [];
  /** the gateway reference of each capture asked by a capture request (its metadata), by intent id */
  readonly captureReferences = new Map<string, string>();
  /** the return_url each intent was confirmed with (Stripe sends the shopper there after its challenge) */
  private readonly returnUrls = new Map<string, string>();
  /** the disputes opened on intents (openDispute), moved by the merchant's evidence and acceptance */
  readonly disputes = new Map<string, Dispute>();
  /** intent and dispute statuses already sent as events (pendingEvents, disputeEvents) */
  private readonly evented = new Set<string>();
  /** the disputes the merchant closed (accepted) */
  private readonly accepted = new Set<string>();
  /** intents still to be made that Stripe answers `processing` (its decision later: settleProcessing) */
  private processingNext = 0;
  /** refund statuses already sent as events (refund.updated, refund.failed) */
  private readonly refundsEvented = new Set<string>();
  /** the refunds Stripe kept pending before deciding them */
  readonly wentPending = new Set<string>();
  /** the intents Stripe kept processing before deciding them */
  readonly wentProcessing = new Set<string>();
  /** the intents Stripe approved (authorised, whatever became of them after) */
  readonly approved = new Set<string>();

  /** the disputes' course in time, when the stub's times give one */
  private readonly life: StripeDisputeLife | undefined;

  constructor(private readonly times: StripeTimes = {}) {
    super(
      'Stripe',
      () =>
        error(
          400,
          'idempotency_error',
          'Keys for idempotent requests can only be used with the same parameters they were first used with.',
        ),
      // Stripe's answer to a key whose first request is still running: 409, the same error type
      () =>
        error(
          409,
          'idempotency_error',
          'There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through). Please try again later.',
        ),
    );
    this.life = times.disputes
      ? new StripeDisputeLife({ now: () => this.now(), later: (ms, act) => this.later(ms, act) }, times.disputes)
      : undefined;
  }

  /** Stripe's return after its challenge page: payment_intent, its client secret and redirect_status in the query. */
  protected challengeFinished(id: string, passed: boolean): string | undefined {
    const pi = this.intents.get(id);
    const back = this.returnUrls.get(id);
    if (!pi || !back || pi.status !== 'requires_action') return undefined;
    this.finishChallenge(id, passed);
    const url = new URL(back);
    url.searchParams.set('payment_intent', id);
    url.searchParams.set('payment_intent_client_secret', `${id}_secret_stub`);
    url.searchParams.set('redirect_status', passed ? 'succeeded' : 'failed');
    return url.href;
  }

  /** The next `count` approvable intents are answered `processing`: Stripe decides them later (settleProcessing). */
  processNext(count = 1): void {
    this.processingNext += count;
  }

  /**
   * Stripe decides an intent it answered `processing`: authorised (captured with automatic capture) or declined
   * (requires_payment_method with the card's error), as its payment_intent events then tell.
   */
  settleProcessing(id: string, approve: boolean): void {
    const pi = this.intents.get(id)!;
    if (pi.status !== 'processing') throw new Error(`intent ${id} is ${pi.status}, not processing`);
    if (approve) this.approve(pi);
    else this.declined(pi, 'card_declined', 'generic_decline');
  }

  /** The shopper finishes (or fails) Stripe's challenge page for an intent. */
  finishChallenge(id: string, passed: boolean): void {
    const pi = this.intents.get(id)!;
    pi.next_action = null;
    if (passed) this.approve(pi);
    else {
      pi.status = 'requires_payment_method';
      pi.last_payment_error = { code: 'payment_intent_authentication_failure', message: 'authentication failed' };
    }
  }

  /**
   * The payment_intent events Stripe owes since the last call, one for each status an intent reached (its
   * webhooks, as `Stripe.Event`-shaped objects with a copy of the intent): requires_action, requires_capture
   * (amount_capturable_updated), succeeded, payment_failed (back to requires_payment_method with an error) and
   * canceled.
   */
  pendingEvents(): { id: string; object: 'event'; type: string; data: { object: Intent } }[] {
    this.settle();
    const types: Record<string, string> = {
      requires_action: 'payment_intent.requires_action',
      processing: 'payment_intent.processing',
      requires_capture: 'payment_intent.amount_capturable_updated',
      succeeded: 'payment_intent.succeeded',
      canceled: 'payment_intent.canceled',
    };
    const out: { id: string; object: 'event'; type: string; data: { object: Intent } }[] = [];
    for (const pi of this.intents.values()) {
      const type =
        types[pi.status] ??
        (pi.status === 'requires_payment_method' && pi.last_payment_error ? 'payment_intent.payment_failed' : undefined);
      const key = `${pi.id}:${pi.status}`;
      if (!type || this.evented.has(key)) continue;
      this.evented.add(key);
      out.push({ id: `evt_${key}`, object: 'event', type, data: { object: structuredClone(pi) } });
    }
    return out;
  }

  /** The refund events Stripe owes since the last call: refund.updated when a pending refund succeeded, refund.failed when it failed. */
  refundEvents(): { id: string; object: 'event'; type: string; data: { object: Refund } }[] {
    this.settle();
    const out: { id: string; object: 'event'; type: string; data: { object: Refund } }[] = [];
    for (const re of this.refunds.values()) {
      const key = `${re.id}:${re.status}`;
      // a refund decided at once owes no update (its answer said it)
      if (re.status === 'pending' || !this.wentPending.has(re.id) || this.refundsEvented.has(key)) continue;
      this.refundsEvented.add(key);
      out.push({
        id: `evt_${key}`,
        object: 'event',
        type: re.status === 'failed' ? 'refund.failed' : 'refund.updated',
        data: { object: structuredClone(re) },
      });
    }
    return out;
  }

  /**
   * Stripe's dispute test cards as Stripe plays them, for the simulation: a payment made with one is disputed
   * once its charge succeeds (an inquiry for createDisputeInquiry), evidence submitted is decided by the next
   * call (won unless it holds `losing_evidence`; an inquiry is closed), and every status a dispute reaches is
   * one event (charge.dispute.created, .updated, .closed), each sent once.
   */
  disputeEvents(): { id: string; object: 'event'; type: string; data: { object: Dispute } }[] {
    this.settle();
    for (const pi of this.intents.values()) {
      const plan = DISPUTE_CARDS[pi.card];
      if (plan && pi.status === 'succeeded' && ![...this.disputes.values()].some((d) => d.payment_intent === pi.id)) {
        const dp = this.openDispute(pi.id, plan.reason, plan.status);
        this.life?.opened(this.disputes.get(dp.id)!);
      }
    }
    if (this.life) return this.life.events();
    const out: { id: string; object: 'event'; type: string; data: { object: Dispute } }[] = [];
    for (const dp of this.disputes.values()) {
      // evidence under review since an earlier call: decided now
      if (dp.status.endsWith('under_review') && this.evented.has(`${dp.id}:${dp.status}`)) {
        const losing = Object.values(dp.evidence).some((t) => t.includes('losing_evidence'));
        dp.status = dp.status === 'warning_under_review' ? 'warning_closed' : losing ? 'lost' : 'won';
      }
      const key = `${dp.id}:${dp.status}`;
      if (this.evented.has(key)) continue;
      this.evented.add(key);
      const type = /needs_response$/.test(dp.status)
        ? 'charge.dispute.created'
        : /under_review$/.test(dp.status)
          ? 'charge.dispute.updated'
          : 'charge.dispute.closed';
      out.push({ id: `evt_${key}`, object: 'event', type, data: { object: structuredClone(dp) } });
    }
    return out;
  }

  /**
   * What Stripe decided on the dispute of a gateway payment, in docs/disputes.md's terms: `won`, or `lost` (a
   * chargeback lost, or a dispute the merchant closed: accepted); undefined while Stripe has not decided.
   */
  disputeDecision(reference: string): 'won' | 'lost' | undefined {
    const pi = this.intentFor(reference);
    const dp = pi && [...this.disputes.values()].find((d) => d.payment_intent === pi.id);
    if (!dp) return undefined;
    if (this.life) return this.life.decision(dp.id);
    if (this.accepted.has(dp.id) || dp.status === 'lost') return 'lost';
    return dp.status === 'won' || dp.status === 'warning_closed' ? 'won' : undefined;
  }

  /** Every decision Stripe made on the dispute of a gateway payment, in order (its first, then each reversal). */
  disputeDecisions(reference: string): ('won' | 'lost')[] {
    const pi = this.intentFor(reference);
    const dp = pi && [...this.disputes.values()].find((d) => d.payment_intent === pi.id);
    if (!dp) return [];
    if (this.life) return this.life.decisions(dp.id);
    const decided = this.disputeDecision(reference);
    return decided ? [decided] : [];
  }

  /** What a dispute has taken from the merchant for good: a chargeback decided lost (and not reinstated since). */
  disputeTaken(dp: Dispute): number {
    if (this.life) return this.life.taken(dp);
    return dp.status === 'lost' ? dp.amount : 0;
  }

  /**
   * A dispute the cardholder's bank opens on an intent's charge: what Stripe's charge.dispute.created carries
   * (`dueBy`: its evidence_details.due_by, unix seconds).
   */
  openDispute(intentId: string, reason: string, status: 'warning_needs_response' | 'needs_response', dueBy?: number): Dispute {
    const pi = this.intents.get(intentId)!;
    const dp: Dispute = {
      id: this.id('dp'),
      object: 'dispute',
      amount: pi.amount_received || pi.amount,
      currency: pi.currency,
      payment_intent: pi.id,
      reason,
      status,
      evidence: {},
      evidence_details: { submission_count: 0, ...(dueBy !== undefined ? { due_by: dueBy } : {}) },
      metadata: {},
    };
    this.disputes.set(dp.id, dp);
    return structuredClone(dp);
  }

  /** A refund made in Stripe's Dashboard, not through the gateway: no gateway reference in its metadata. */
  refundInDashboard(intentId: string, amount: number): Refund {
    const refund = this.newRefund(this.intents.get(intentId)!, amount, {}, this.now());
    return structuredClone(refund);
  }

  /** A refund of `pi` kept as succeeded, listed from `listedAt` (Stripe's list may lag its creation). */
  private newRefund(pi: { id: string; currency: string }, amount: number, metadata: Record<string, string>, listedAt: number): Refund {
    const refund: Refund = {
      id: this.id('re'),
      object: 'refund',
      amount,
      currency: pi.currency,
      payment_intent: pi.id,
      status: 'succeeded',
      metadata,
      listedAt,
    };
    this.refunds.set(refund.id, refund);
    return refund;
  }

  /** The intent Stripe made for a gateway reference (its metadata). */
  intentFor(reference: string): Intent | undefined {
    return [...this.intents.values()].find((pi) => pi.metadata.gateway_reference === reference);
  }

  private id(prefix: string): string {
    return `${prefix}_stub${String(++this.seq).padStart(8, '0')}`;
  }

  protected handle(r: StubRequest): StubAnswer {
    if (!/^Bearer sk_(test|live)_/.test(String(r.headers.authorization)))
      return error(401, 'invalid_request_error', 'Invalid API Key provided');
    const form = parseStripeForm(r.raw);
    let m: RegExpExecArray | null;
    if (r.method === 'POST' && r.path === '/v1/payment_intents') return this.create(form);
    if (r.method === 'GET' && r.path === '/v1/payment_intents/search') return this.search(r.query.get('query') ?? '');
    if ((m = /^\/v1\/payment_intents\/([^/]+)$/.exec(r.path)) && r.method === 'GET')
      return this.found(m[1]!, (pi) => ({ status: 200, body: pi }));
    if ((m = /^\/v1\/payment_intents\/([^/]+)\/capture$/.exec(r.path))) return this.found(m[1]!, (pi) => this.capture(pi, form));
    if ((m = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(r.path))) return this.found(m[1]!, (pi) => this.cancel(pi));
    if (r.method === 'GET' && r.path === '/v1/disputes') {
      const data = [...this.disputes.values()].filter((x) => x.payment_intent === r.query.get('payment_intent'));
      return { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/disputes' } };
    }
    if ((m = /^\/v1\/disputes\/([^/]+)$/.exec(r.path)) && r.method === 'POST')
      return this.disputeFound(m[1]!, (dp) => this.evidence(dp, form));
    if ((m = /^\/v1\/disputes\/([^/]+)\/close$/.exec(r.path)) && r.method === 'POST')
      return this.disputeFound(m[1]!, (dp) => this.close(dp));
    if (r.method === 'POST' && r.path === '/v1/refunds') return this.refund(form);
    if (r.method === 'GET' && r.path === '/v1/refunds') {
      // the list trails Stripe's records: a refund just made may not be in it yet
      const data = [...this.refunds.values()].filter((x) => x.payment_intent === r.query.get('payment_intent') && x.listedAt <= this.now());
      return { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/refunds' } };
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (${r.method}: ${r.path})`);
  }

  private disputeFound(id: string, then: (dp: Dispute) => StubAnswer): StubAnswer {
    const dp = this.disputes.get(id);
    return dp ? then(dp) : error(404, 'invalid_request_error', `No such dispute: '${id}'`, { code: 'resource_missing' });
  }

  /** Updates a dispute's evidence; with submit=true sends it (once): the dispute is then under review. */
  private evidence(dp: Dispute, form: Record<string, unknown>): StubAnswer {
    if (!dp.status.endsWith('needs_response'))
      return error(400, 'invalid_request_error', `This dispute is ${dp.status} and its evidence can no longer be updated.`);
    Object.assign(dp.evidence, (form.evidence as Record<string, string> | undefined) ?? {});
    Object.assign(dp.metadata, (form.metadata as Record<string, string> | undefined) ?? {});
    if (form.submit === 'true') {
      dp.evidence_details.submission_count++;
      dp.status = dp.status === 'warning_needs_response' ? 'warning_under_review' : 'under_review';
      this.life?.evidenceSubmitted(dp);
    }
    return { status: 200, body: dp };
  }

  /** Closes a dispute (the merchant accepts it): a chargeback is lost, an inquiry closed. */
  private close(dp: Dispute): StubAnswer {
    if (!dp.status.endsWith('needs_response')) return error(400, 'invalid_request_error', `This dispute is already ${dp.status}.`);
    this.accepted.add(dp.id);
    if (this.life) this.life.accepted(dp);
    else dp.status = dp.status === 'warning_needs_response' ? 'warning_closed' : 'lost';
    return { status: 200, body: dp };
  }

  private found(id: string, then: (pi: Intent) => StubAnswer): StubAnswer {
    const pi = this.intents.get(id);
    return pi ? then(pi) : error(404, 'invalid_request_error', `No such payment_intent: '${id}'`, { code: 'resource_missing' });
  }

  private create(form: Record<string, unknown>): StubAnswer {
    const pmData = form.payment_method_data as { card?: { number?: string } } | undefined;
    const card = String(form.payment_method ?? pmData?.card?.number ?? '');
    const behaviour = BEHAVIOUR[card] ?? (pmData?.card?.number ? 'approve' : 'unknown');
    if (behaviour === 'unknown')
      return error(400, 'invalid_request_error', `No such PaymentMethod: '${card}'`, { code: 'resource_missing' });
    const amount = Number(form.amount);
    if (!Number.isInteger(amount) || amount < 1)
      return error(400, 'invalid_request_error', 'Invalid positive integer', { param: 'amount' });
    const pi: Intent = {
      id: this.id('pi'),
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      currency: String(form.currency),
      status: 'requires_capture',
      capture_method: String(form.capture_method ?? 'automatic'),
      metadata: (form.metadata as Record<string, string>) ?? {},
      last_payment_error: null,
      next_action: null,
      latest_charge: null,
      card,
      created: this.now(),
      searchableAt: this.now() + (this.times.searchLagMs?.(this.seq) ?? 0),
    };
    this.intents.set(pi.id, pi);
    const threeds = (form.payment_method_options as { card?: { request_three_d_secure?: string } } | undefined)?.card
      ?.request_three_d_secure;
    if (behaviour === '3ds' && form.off_session === 'true') return this.decline(pi, 'authentication_required', 'authentication_required');
    if (behaviour === '3ds' && threeds !== undefined) {
      pi.status = 'requires_action';
      // with a return_url Stripe hands the shopper to its own page (redirect_to_url); without, to Stripe.js
      const returnUrl = typeof form.return_url === 'string' ? form.return_url : undefined;
      if (returnUrl) this.returnUrls.set(pi.id, returnUrl);
      pi.next_action = returnUrl
        ? { type: 'redirect_to_url', redirect_to_url: { url: `${this.baseUrl}/challenge/${pi.id}`, return_url: returnUrl } }
        : { type: 'use_stripe_sdk' };
      return { status: 200, body: pi };
    }
    if (behaviour !== 'approve')
      return this.decline(pi, behaviour === 'processing_error' ? 'processing_error' : 'card_declined', behaviour);
    if (this.processingNext > 0) {
      this.processingNext--;
      pi.status = 'processing';
      this.wentProcessing.add(pi.id);
      return { status: 200, body: pi };
    }
    const processing = this.times.processing?.(amount);
    if (processing) {
      // Stripe answers `processing` and decides later: payment_intent.succeeded (or amount_capturable_updated)
      // or payment_intent.payment_failed follows
      pi.status = 'processing';
      this.wentProcessing.add(pi.id);
      this.later(processing.ms, () => this.settleProcessing(pi.id, processing.approve));
      return { status: 200, body: pi };
    }
    this.approve(pi);
    return { status: 200, body: pi };
  }

  /** Stripe approves an intent: captured at once (automatic capture) or held for the merchant's capture. */
  private approve(pi: Intent): void {
    this.approved.add(pi.id);
    if (pi.capture_method === 'automatic') {
      pi.status = 'succeeded';
      pi.amount_received = pi.amount;
      this.captures.push([pi.id, pi.amount]);
    } else {
      pi.status = 'requires_capture';
      pi.amount_capturable = pi.amount;
    }
  }

  private later(ms: number, act: () => void): void {
    this.server.later(ms, act);
  }

  private declined(pi: Intent, code: string, declineCode: string): void {
    pi.status = 'requires_payment_method';
    pi.last_payment_error = {
      code,
      ...(code === 'card_declined' ? { decline_code: declineCode } : {}),
      message: 'Your card was declined.',
    };
  }

  private decline(pi: Intent, code: string, declineCode: string): StubAnswer {
    this.declined(pi, code, declineCode);
    return error(402, 'card_error', 'Your card was declined.', {
      code,
      ...(code === 'card_declined' ? { decline_code: declineCode } : {}),
      payment_intent: pi,
    });
  }

  private capture(pi: Intent, form: Record<string, unknown>): StubAnswer {
    if (pi.status !== 'requires_capture')
      return error(400, 'invalid_request_error', `This PaymentIntent could not be captured because it has a status of ${pi.status}.`, {
        code: 'payment_intent_unexpected_state',
      });
    const amount = form.amount_to_capture === undefined ? pi.amount_capturable : Number(form.amount_to_capture);
    if (amount > pi.amount_capturable)
      return error(400, 'invalid_request_error', 'amount_to_capture is greater than amount_capturable', { code: 'amount_too_large' });
    pi.status = 'succeeded';
    pi.amount_received = amount;
    pi.amount_capturable = 0;
    this.captures.push([pi.id, amount]);
    const reference = (form.metadata as Record<string, string> | undefined)?.gateway_reference_capture;
    if (reference) this.captureReferences.set(pi.id, reference);
    return { status: 200, body: pi };
  }

  private cancel(pi: Intent): StubAnswer {
    if (!['requires_capture', 'requires_payment_method', 'requires_action'].includes(pi.status))
      return error(400, 'invalid_request_error', `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`, {
        code: 'payment_intent_unexpected_state',
      });
    pi.status = 'canceled';
    pi.amount_capturable = 0;
    return { status: 200, body: pi };
  }

  private refund(form: Record<string, unknown>): StubAnswer {
    const pi = this.intents.get(String(form.payment_intent));
    if (!pi) return error(404, 'invalid_request_error', 'No such payment_intent', { code: 'resource_missing' });
    if (pi.status !== 'succeeded')
      return error(400, 'invalid_request_error', 'This PaymentIntent has not been captured', { code: 'charge_not_captured' });
    const refunded = [...this.refunds.values()]
      .filter((x) => x.payment_intent === pi.id && x.status !== 'failed')
      .reduce((sum, x) => sum + x.amount, 0);
    const amount = form.amount === undefined ? pi.amount_received - refunded : Number(form.amount);
    if (amount + refunded > pi.amount_received)
      return error(400, 'invalid_request_error', 'Refund amount is greater than unrefunded amount on charge', { code: 'amount_too_large' });
    const refund = this.newRefund(
      pi,
      amount,
      (form.metadata as Record<string, string>) ?? {},
      this.now() + (this.times.listLagMs?.(this.seq) ?? 0),
    );
    const pending = this.times.refundPending?.(amount);
    if (pending) {
      // Stripe accepts it `pending` and decides later: refund.updated (succeeded) or refund.failed follows,
      // and a failed refund's amount may be refunded again
      refund.status = 'pending';
      this.wentPending.add(refund.id);
      this.later(pending.ms, () => {
        refund.status = pending.succeeds ? 'succeeded' : 'failed';
        if (!pending.succeeds) refund.failure_reason = 'expired_or_canceled_card';
      });
    }
    return { status: 200, body: refund };
  }

  /** Only the query the connector sends: metadata['gateway_reference']:'<reference>'. */
  private search(query: string): StubAnswer {
    const m = /^metadata\['([^']+)'\]:'(.*)'$/.exec(query);
    if (!m) return error(400, 'invalid_request_error', 'stub: unsupported search query');
    // Stripe's search index trails its objects: an intent just made may not be found yet
    const data = [...this.intents.values()].filter((pi) => pi.metadata[m[1]!] === m[2] && pi.searchableAt <= this.now());
    return { status: 200, body: { object: 'search_result', data, has_more: false, url: '/v1/payment_intents/search' } };
  }
}
