import { parseRespon } from './respon.js';
import { shopperSignature, signRequest, type Endpoint, type SignatureForm } from './signing.js';
import { verifyAnswer } from './verify.js';
import type * as T from './types.js';

export interface ClientOptions {
  /** the gateway's address, e.g. https://pay.example.com */
  baseUrl: string;
  merchantId: string;
  accountId: string;
  signKey: string;
  /** which signature form requests use (the gateway accepts both); default spaces-removed */
  signatureForm?: SignatureForm;
  /** check every signed answer's encryption_data and throw when it does not match; default true */
  verifyAnswers?: boolean;
  fetch?: typeof fetch;
}

/** A refusal of the gateway (4xx/5xx): its HTTP status, stable code and the message naming the field. */
export class GatewayApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** the respon document, when /v1/authorise answered the refusal in XML */
    readonly respon?: T.PaymentAnswer,
  ) {
    super(message);
    this.name = 'GatewayApiError';
  }
}

/** An answer whose signature does not match: never act on it. */
export class AnswerSignatureError extends Error {
  override name = 'AnswerSignatureError';
}

export interface CallOptions {
  /** sent as the Idempotency-Key header */
  idempotencyKey?: string;
  /** ask for JSON error bodies instead of respon XML ones (/v1/authorise) */
  preferJson?: boolean;
}

/**
 * A merchant's client of the gateway's /v1 calls: fills merchant_id and account_id, signs, sends the JSON
 * text, reads the answer (the respon XML of /v1/authorise too) and checks its signature.
 */
export class GatewayClient {
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.fetcher = options.fetch ?? fetch;
  }

  /** The signed body of a call, as it would be sent (also what `gateway-sdk sign` prints). */
  build<B extends Record<string, unknown>>(
    endpoint: Endpoint,
    body: B,
  ): B & { merchant_id: string; account_id: string; encryption_data: string } {
    const full = { merchant_id: this.options.merchantId, account_id: this.options.accountId, ...body };
    return signRequest(endpoint, full, this.options.signKey, this.options.signatureForm);
  }

  /** Sends any /v1 call; the typed methods below are this with their fields named. */
  async call<A = Record<string, unknown>>(endpoint: Endpoint, body: Record<string, unknown>, opts: CallOptions = {}): Promise<A> {
    const signed = this.build(endpoint, body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: opts.preferJson ? 'application/json' : 'application/json, application/xml;q=0.9',
    };
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    const res = await this.fetcher(`${this.options.baseUrl.replace(/\/+$/, '')}/v1/${endpoint}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(signed),
    });
    const text = await res.text();
    const isXml = /xml/.test(res.headers.get('content-type') ?? '');
    if (!res.ok) {
      if (isXml) {
        const respon = parseRespon(text);
        const [code = String(res.status), ...rest] = respon.result_info.split(':');
        throw new GatewayApiError(res.status, code, rest.join(':') || respon.result_info, undefined, respon);
      }
      let error: T.ErrorBody;
      try {
        error = JSON.parse(text) as T.ErrorBody;
      } catch {
        throw new GatewayApiError(res.status, 'HTTP_ERROR', `HTTP ${res.status}: ${text.slice(0, 200)}`);
      }
      throw new GatewayApiError(res.status, error.code, error.message, error.field);
    }
    const answer = (isXml ? parseRespon(text) : JSON.parse(text)) as Record<string, unknown>;
    if (this.options.verifyAnswers !== false && endpoint !== 'checkout') {
      const verdict = verifyAnswer(endpoint, answer, this.options.signKey);
      if (!verdict.ok) throw new AnswerSignatureError(`the ${endpoint} answer is not signed by this account: ${verdict.reason}`);
    }
    return answer as A;
  }

  authorise(req: T.AuthoriseRequest, opts?: CallOptions): Promise<T.PaymentAnswer> {
    return this.call('authorise', req, opts);
  }
  /** The hosted checkout for an iFrame or a redirect: {checkout_url, expires_at}. */
  checkout(req: T.CheckoutRequest, opts?: CallOptions): Promise<T.CheckoutAnswer> {
    const { merchantId, accountId, signKey } = this.options;
    const proven =
      req.shopper_id && !req.shopper_signature
        ? { ...req, shopper_signature: shopperSignature(merchantId, accountId, req.shopper_id, signKey) }
        : req;
    return this.call('checkout', proven, { ...opts, preferJson: true });
  }
  capture(orders: T.CaptureOrder[], opts?: CallOptions): Promise<T.CaptureAnswer> {
    return this.call('capture', { capture_orders: orders }, opts);
  }
  cancel(orders: T.CancelOrder[], opts?: CallOptions): Promise<T.CancelAnswer> {
    return this.call('cancel', { cancel_orders: orders }, opts);
  }
  review(orders: T.ReviewOrder[], opts?: CallOptions): Promise<T.ReviewAnswer> {
    return this.call('review', { review_orders: orders }, opts);
  }
  refund(orders: T.RefundOrder[], opts?: CallOptions): Promise<T.RefundAnswer> {
    return this.call('refund', { refund_orders: orders }, opts);
  }
  retrievalTrans(req: T.RetrievalTransRequest = {}, opts?: CallOptions): Promise<T.RetrievalTransAnswer> {
    return this.call('retrievalTrans', req, opts);
  }
  retrievalRefund(req: T.RetrievalRefundRequest, opts?: CallOptions): Promise<T.RetrievalRefundAnswer> {
    return this.call('retrievalRefund', req, opts);
  }
  cancelSubscription(req: T.CancelSubscriptionRequest, opts?: CallOptions): Promise<T.CancelSubscriptionAnswer> {
    return this.call('cancelsubscription', req, opts);
  }
  resendNotifications(req: T.ResendRequest, opts?: CallOptions): Promise<T.ResendAnswer> {
    return this.call('notifications/resend', req, opts);
  }
  payout(req: T.PayoutRequest, opts?: CallOptions): Promise<T.PayoutAnswer> {
    return this.call('payout', req, opts);
  }
  payoutQuery(req: T.PayoutQueryRequest, opts?: CallOptions): Promise<T.PayoutAnswer> {
    return this.call('payout/query', req, opts);
  }
  optimise(req: T.OptimiseRequest, opts?: CallOptions): Promise<T.OptimiseAnswer> {
    return this.call('optimise', req, opts);
  }
  /** A shopper's cards saved on the hosted card page (the checkout's shopper_id). */
  retrievalCards(req: T.RetrievalCardsRequest, opts?: CallOptions): Promise<T.RetrievalCardsAnswer> {
    return this.call('retrievalCards', req, opts);
  }
  /** Removes one of a shopper's saved cards; a card the shopper does not have is a GatewayApiError 404. */
  deleteCard(req: T.DeleteCardRequest, opts?: CallOptions): Promise<T.DeleteCardAnswer> {
    return this.call('deleteCard', req, opts);
  }
  /** Disputes (chargebacks) by transaction, order, dispute_id and/or opening dates; newest first. */
  retrievalDispute(req: T.RetrievalDisputeRequest = {}, opts?: CallOptions): Promise<T.RetrievalDisputeAnswer> {
    return this.call('retrievalDispute', req, opts);
  }
  /** Saves (submit '0') or sends (submit '1') a dispute's evidence; a refusal is return_status '0'. */
  disputeEvidence(req: T.DisputeEvidenceRequest, opts?: CallOptions): Promise<T.DisputeCallAnswer> {
    return this.call('disputeEvidence', req, opts);
  }
  /** Accepts a dispute: it is lost at once; a refusal is return_status '0'. */
  disputeAccept(req: T.DisputeAcceptRequest, opts?: CallOptions): Promise<T.DisputeCallAnswer> {
    return this.call('disputeAccept', req, opts);
  }
  /** Creates a test clock (sandbox accounts only); payments sent with its test_clock_id live in its time. */
  testClock(req: T.TestClockRequest, opts?: CallOptions): Promise<T.TestClockAnswer> {
    return this.call('testClock', req, opts);
  }
  /** Starts moving a clock to frozen_time: answered `advancing` at once, `ready` when every step due has run. */
  testClockAdvance(req: T.TestClockAdvanceRequest, opts?: CallOptions): Promise<T.TestClockAnswer> {
    return this.call('testClockAdvance', req, opts);
  }
  retrievalTestClock(req: T.RetrievalTestClockRequest = {}, opts?: CallOptions): Promise<T.RetrievalTestClockAnswer> {
    return this.call('retrievalTestClock', req, opts);
  }
  /** Deletes a clock with every payment, subscription, dispute and notification attached to it. */
  testClockDelete(req: T.TestClockDeleteRequest, opts?: CallOptions): Promise<T.TestClockAnswer> {
    return this.call('testClockDelete', req, opts);
  }
}
