import adyen from '@adyen/api-library';
import type { Types } from '@adyen/api-library';
import { AcquirerStub, type StubAnswer, type StubRequest } from './stub-server.js';
import type { AcquirerStatus } from '../../../src/core/ports/card-connector.js';
import { emptyBook, isAuthorisationOf, type AcquirerBook } from './books.js';
import { AdyenDisputeLife, type AdyenDisputeTimes, type OwedDisputeNotice } from './adyen-dispute-life.js';

/**
 * A stub of Adyen's Checkout API (v72) for the calls the Adyen connector makes, written from Adyen's API
 * reference: /payments, /payments/details, /payments/{pspReference}/captures, /cancels, /refunds, with
 * X-API-Key, Idempotency-Key and Adyen's error body (`status`, `errorCode`, `message`, `errorType`). Its own
 * records (`payments`, `modifications`) are what the tests count. `notification` makes the webhook Adyen
 * would send for a payment or modification, signed with an HMAC key by Adyen's own HmacValidator.
 */

interface StubPayment {
  pspReference: string;
  reference: string;
  merchantAccount: string;
  amount: { value: number; currency: string };
  /** where Adyen sends the shopper back after its challenge page (the request's returnUrl) */
  returnUrl: string;
  resultCode: string;
  /** the payment went through Adyen's challenge page (RedirectShopper) */
  challenged?: boolean;
  captured: number;
  refunded: number;
  cancelled: boolean;
  /** asked without manualCapture: captured as it is authorised (the account's capture delay: immediate) */
  autoCapture?: boolean;
  /** the test: the card number it was asked with (Adyen's dispute test behaviour follows it) */
  number?: string;
}

interface Modification {
  kind: 'capture' | 'cancel' | 'refund';
  pspReference: string;
  paymentPspReference: string;
  reference: string;
  amount?: { value: number; currency: string };
  /** a capture the scheme refuses after Adyen accepted it: CAPTURE_FAILED follows its CAPTURE */
  failsLater?: boolean;
  /** that refusal happened: nothing was captured (or refunded) */
  failed?: boolean;
  /** a refund Adyen refuses after it received it: its REFUND notification says success false */
  refusedLater?: boolean;
}

/**
 * How the stub's Adyen behaves over time, beyond answering at once (all off by default): payments answered
 * `Received` or `Pending` and decided later (the AUTHORISATION notification tells), and refunds Adyen received
 * and refuses later (REFUND with success false). Each is decided from the amount (minor units).
 */
export interface AdyenTimes {
  /** a payment Adyen answers `Received` (or `Pending`) and decides after `ms` */
  pending?: (value: number) => { ms: number; approve: boolean; resultCode: 'Received' | 'Pending' } | undefined;
  /** a refund Adyen refuses after it received it */
  refuseRefundLater?: (value: number) => boolean;
  /**
   * how long a payment waiting on the shopper's challenge stays open: then Adyen closes the offer (OFFER_CLOSED;
   * its default for cards is 12 hours); unset: never
   */
  offerExpiresMs?: number;
  /** chargebacks carried through time (adyen-dispute-life.ts); unset: none */
  disputes?: AdyenDisputeTimes;
}

const REFUSALS: Record<string, [string, string]> = {
  DECLINED: ['2', 'Refused'],
  NOT_ENOUGH_BALANCE: ['12', 'Not enough balance'],
  CARD_EXPIRED: ['6', 'Expired Card'],
  FRAUD: ['20', 'FRAUD'],
};

const apiError = (status: number, errorCode: string, message: string): StubAnswer => ({
  status,
  body: { status, errorCode, message, errorType: status >= 500 ? 'internal' : 'validation' },
});

export class AdyenStub extends AcquirerStub {
  readonly payments = new Map<string, StubPayment>();
  readonly modifications: Modification[] = [];
  /** captures that failed after they were accepted (CAPTURE_FAILED sent) */
  capturesFailed = 0;
  /** payments still to be made that Adyen answers `Received` (its decision later: decideReceived) */
  private receivedNext = 0;
  /** payments answered Received or Pending, decided later */
  decidedLater = 0;

  /**
   * `failCaptureLater`: which accepted captures the scheme refuses later (by the captured amount in minor
   * units); each then has its CAPTURE_FAILED webhook owed with its CAPTURE, unless it was refunded meanwhile.
   */
  /** its chargebacks' course in time, when its times give one */
  private readonly life: AdyenDisputeLife | undefined;

  constructor(
    private readonly failCaptureLater: (value: number) => boolean = () => false,
    private readonly times: AdyenTimes = {},
  ) {
    super('Adyen', () => apiError(422, '704', 'request already processed or in progress (Idempotency-Key reused with another request)'));
    this.life = times.disputes
      ? new AdyenDisputeLife({ now: () => this.now(), later: (ms, act) => this.server.later(ms, act) }, times.disputes)
      : undefined;
  }

  /** What Adyen decided on the dispute of a gateway payment: won, lost, or undefined while it has not. */
  disputeDecision(reference: string): 'won' | 'lost' | undefined {
    const payment = this.paymentFor(reference);
    return payment ? this.life?.decision(payment.pspReference) : undefined;
  }

  /** Every decision Adyen made on the chargeback of a gateway payment, in order. */
  disputeDecisions(reference: string): ('won' | 'lost')[] {
    const payment = this.paymentFor(reference);
    return payment ? (this.life?.decisionLog(payment.pspReference) ?? []) : [];
  }

  /** A chargeback notification Adyen sends on a payment (its dispute's own PSP reference), HMAC-signed. */
  private disputeNotification(notice: OwedDisputeNotice, hmacKey: string): Types.notification.NotificationRequestItem {
    const payment = this.payments.get(notice.paymentPsp)!;
    const item = {
      pspReference: `${notice.paymentPsp.slice(0, 10)}DP${notice.paymentPsp.slice(12)}`,
      originalReference: notice.paymentPsp,
      merchantAccountCode: payment.merchantAccount,
      merchantReference: payment.reference,
      amount: { value: payment.captured || payment.amount.value, currency: payment.amount.currency },
      eventCode: notice.eventCode,
      eventDate: new Date(this.now()).toISOString(),
      success: 'true',
      reason: notice.reason,
      paymentMethod: 'visa',
      additionalData: {} as Record<string, string>,
    } as unknown as Types.notification.NotificationRequestItem;
    const hmacSignature = new adyen.hmacValidator().calculateHmac(item, hmacKey);
    item.additionalData = { defensePeriodEndsAt: notice.defensePeriodEndsAt, hmacSignature };
    return item;
  }

  /** The next `count` approvable payments are answered `Received`: Adyen decides them later (decideReceived). */
  receiveNext(count = 1): void {
    this.receivedNext += count;
  }

  /** Adyen decides a payment it answered `Received`: its AUTHORISATION notification then says so. */
  decideReceived(reference: string, approve: boolean): void {
    const payment = this.paymentFor(reference)!;
    if (payment.resultCode !== 'Received') throw new Error(`payment ${reference} is ${payment.resultCode}, not Received`);
    this.decide(payment, approve);
  }

  /** Adyen decides a payment it answered Received or Pending: captured as it is authorised when asked so. */
  private decide(payment: StubPayment, approve: boolean): void {
    payment.resultCode = approve ? 'Authorised' : 'Refused';
    if (approve && payment.autoCapture) payment.captured = payment.amount.value;
  }

  /** Adyen's return after its challenge page: the payment's returnUrl with redirectResult in the query. */
  protected challengeFinished(psp: string, passed: boolean): string | undefined {
    const payment = this.payments.get(psp);
    if (!payment || payment.resultCode !== 'RedirectShopper' || !payment.returnUrl) return undefined;
    const url = new URL(payment.returnUrl);
    url.searchParams.set('redirectResult', this.redirectResult(psp, passed));
    return url.href;
  }

  /** The redirectResult Adyen hands the shopper back with after its challenge page. */
  redirectResult(pspReference: string, passed: boolean): string {
    return Buffer.from(JSON.stringify({ pspReference, passed })).toString('base64url');
  }

  paymentFor(reference: string): StubPayment | undefined {
    return [...this.payments.values()].find((p) => p.reference === reference);
  }

  /** The notification Adyen sends for a payment (AUTHORISATION) or modification (its reference), HMAC-signed. */
  notification(
    eventCode: string,
    reference: string,
    hmacKey: string,
    success = true,
    reason = '',
  ): Types.notification.NotificationRequestItem {
    const payment = this.paymentFor(reference);
    const modification = this.modifications.find((m) => m.reference === reference);
    const target = payment ?? this.payments.get(modification?.paymentPspReference ?? '');
    const item = {
      pspReference: modification?.pspReference ?? payment?.pspReference ?? `psp${++this.seq}`,
      ...(modification ? { originalReference: modification.paymentPspReference } : {}),
      merchantAccountCode: target?.merchantAccount ?? 'ShopECOM',
      merchantReference: reference,
      amount: modification?.amount ?? target?.amount ?? { value: 0, currency: 'EUR' },
      eventCode,
      eventDate: '2026-11-25T10:00:00+01:00',
      success: success ? 'true' : 'false',
      reason,
      paymentMethod: 'visa',
      additionalData: {} as Record<string, string>,
    } as unknown as Types.notification.NotificationRequestItem;
    item.additionalData = { hmacSignature: new adyen.hmacValidator().calculateHmac(item, hmacKey) };
    return item;
  }

  /**
   * What Adyen did under a gateway reference, from its own records (the simulation's truth: the connector's
   * status reads only what Adyen told it): the payment's result under its reference (and under `-3ds` once
   * its challenge ended), a modification under its own.
   */
  status(reference: string): AcquirerStatus {
    this.settle();
    const challenge = /^(.*)-3ds$/.exec(reference);
    const payment = this.paymentFor(challenge ? challenge[1]! : reference);
    if (payment && (!challenge || payment.challenged)) {
      const connectorRef = payment.pspReference;
      const asked = { amount: payment.amount.value, currency: payment.amount.currency };
      switch (payment.resultCode) {
        case 'Authorised':
          return { op: 'authorise', outcome: { kind: 'approved', connectorRef, threedsResult: '' }, ...asked };
        case 'Refused':
          return { op: 'authorise', outcome: { kind: 'declined', connectorRef, reason: 'DECLINED', threedsResult: '' }, ...asked };
        case 'RedirectShopper':
          return challenge ? undefined : { op: 'authorise', outcome: { kind: 'challenge', connectorRef }, ...asked };
        case 'Received':
        case 'Pending':
          return { op: 'authorise', outcome: { kind: 'pending', connectorRef }, ...asked };
        default:
          return { op: 'authorise', outcome: { kind: 'error', message: payment.resultCode }, ...asked };
      }
    }
    const m = this.modifications.find((x) => x.reference === reference);
    if (!m) return undefined;
    if (m.failed)
      return {
        op: m.kind === 'refund' ? 'refund' : 'capture',
        outcome: { ok: false, message: m.kind === 'refund' ? 'adyen: REFUND refused' : 'adyen: CAPTURE_FAILED' },
        amount: m.amount!.value,
        currency: m.amount!.currency,
      };
    const outcome = { ok: true as const, connectorRef: m.kind === 'refund' ? m.pspReference : m.paymentPspReference };
    const amount = m.amount ? { amount: m.amount.value, currency: m.amount.currency } : {};
    return m.kind === 'cancel' ? { op: 'void', outcome } : { op: m.kind, outcome, ...amount };
  }

  /** Everything Adyen holds for a gateway payment: its PSP payments and their modifications. */
  book(transactionId: string): AcquirerBook {
    this.settle();
    const book = emptyBook();
    const payments = [...this.payments.values()].filter((p) => isAuthorisationOf(p.reference, transactionId));
    for (const p of payments) {
      book.objects[p.reference] = (book.objects[p.reference] ?? 0) + 1;
      if (p.resultCode !== 'Authorised') continue;
      book.authorised = p.amount.value;
      book.held = !p.cancelled;
      book.captured += p.captured;
      book.disputed += this.life?.taken(p.pspReference) ?? 0;
      const mods = this.modifications.filter((m) => m.paymentPspReference === p.pspReference);
      book.captures += mods.filter((m) => m.kind === 'capture').length;
      for (const m of mods.filter((x) => x.kind === 'refund'))
        book.refunds.push({ reference: m.reference, amount: m.amount!.value, failed: m.failed === true });
    }
    return book;
  }

  private readonly notified = new Set<string>();

  /**
   * The webhooks Adyen owes since the last call: AUTHORISATION for each payment with a final result, CAPTURE,
   * CANCELLATION and REFUND for each modification, CAPTURE_FAILED for a capture that fails later, each once
   * (the simulation sends again what the gateway did not acknowledge).
   */
  pendingNotifications(hmacKey: string): Types.notification.NotificationRequestItem[] {
    this.settle();
    const out: Types.notification.NotificationRequestItem[] = [];
    const once = (key: string, make: () => Types.notification.NotificationRequestItem) => {
      if (this.notified.has(key)) return;
      this.notified.add(key);
      out.push(make());
    };
    // a captured payment of a dispute card is charged back, and the chargeback moves on in time
    if (this.life) {
      // (not one whose capture the scheme refuses later: nothing was captured)
      for (const p of this.payments.values())
        if (p.captured > 0 && p.number && !this.modifications.some((m) => m.paymentPspReference === p.pspReference && m.failsLater))
          this.life.captured(p.pspReference, p.number, p.captured);
      for (const notice of this.life.notices()) out.push(this.disputeNotification(notice, hmacKey));
    }
    // an offer the shopper never completed, closed (Adyen's own state, not a resultCode it answers)
    for (const p of this.payments.values())
      if (p.resultCode === 'OfferClosed') once(`offer:${p.pspReference}`, () => this.notification('OFFER_CLOSED', p.reference, hmacKey));
    // every payment Adyen decided: an error is an AUTHORISATION with success false too
    for (const p of this.payments.values())
      if (p.resultCode === 'Authorised' || p.resultCode === 'Refused' || p.resultCode === 'Error')
        once(`auth:${p.pspReference}`, () =>
          this.notification(
            'AUTHORISATION',
            p.reference,
            hmacKey,
            p.resultCode === 'Authorised',
            p.resultCode === 'Error' ? 'Acquirer Error' : '',
          ),
        );
    const codes = { capture: 'CAPTURE', cancel: 'CANCELLATION', refund: 'REFUND' } as const;
    for (const m of this.modifications) {
      const items: Types.notification.NotificationRequestItem[] = [];
      if (m.refusedLater && !m.failed) {
        // Adyen refuses the refund it received: nothing is refunded, and its REFUND says so
        m.failed = true;
        const payment = this.payments.get(m.paymentPspReference);
        if (payment) payment.refunded -= m.amount!.value;
      }
      once(`mod:${m.pspReference}`, () =>
        this.notification(codes[m.kind], m.reference, hmacKey, !(m.kind === 'refund' && m.failed), m.failed ? 'Refund refused' : ''),
      );
      // the scheme's refusal of a capture comes with or after its CAPTURE (webhooks keep no order: one in two
      // such refusals arrives first); a capture refunded meanwhile stands
      const payment = this.payments.get(m.paymentPspReference);
      if (m.failsLater && !m.failed && payment && payment.refunded === 0) {
        m.failed = true;
        payment.captured = 0;
        this.capturesFailed++;
        const failure = this.notification('CAPTURE_FAILED', m.reference, hmacKey, true, 'Capture refused by the scheme');
        if (m.amount!.value % 10 === 7 && out.at(-1)?.pspReference === m.pspReference) items.push(out.pop()!);
        out.push(failure, ...items);
      }
    }
    return out;
  }

  private psp(): string {
    return `88${String(++this.seq).padStart(14, '0')}`;
  }

  protected handle(r: StubRequest): StubAnswer {
    if (!r.headers['x-api-key']) return apiError(401, '000', 'HTTP Status Response - Unauthorized');
    const body = JSON.parse(r.raw || '{}') as Record<string, unknown>;
    let m: RegExpExecArray | null;
    if (r.path === '/v72/payments') return this.pay(body);
    if (r.path === '/v72/payments/details') return this.details(body);
    if ((m = /^\/v72\/payments\/([^/]+)\/(captures|cancels|refunds)$/.exec(r.path))) return this.modify(m[1]!, m[2]!, body);
    return apiError(404, '000', `stub: no ${r.path}`);
  }

  private pay(body: Record<string, unknown>): StubAnswer {
    const method = body.paymentMethod as { number?: string; holderName?: string };
    const amount = body.amount as { value: number; currency: string };
    if (!body.merchantAccount) return apiError(422, '901', 'Invalid Merchant Account');
    if (!method?.number) return apiError(422, '129', 'Required field paymentMethod.number missing');
    const payment: StubPayment = {
      pspReference: this.psp(),
      number: method.number,
      reference: String(body.reference),
      merchantAccount: String(body.merchantAccount),
      amount,
      returnUrl: typeof body.returnUrl === 'string' ? body.returnUrl : '',
      resultCode: 'Authorised',
      captured: 0,
      refunded: 0,
      cancelled: false,
    };
    this.payments.set(payment.pspReference, payment);
    // a card Adyen's risk screening refuses (any raw number the stub treats so), else the holder name's reason
    const refusal = method.number === '4100000000000019' ? REFUSALS.FRAUD : REFUSALS[method.holderName ?? ''];
    const answer = { pspReference: payment.pspReference, merchantReference: payment.reference, amount };
    if (method.holderName === 'ERROR') {
      payment.resultCode = 'Error';
      return { status: 200, body: { ...answer, resultCode: 'Error', refusalReason: 'Acquirer Error' } };
    }
    if (refusal) {
      payment.resultCode = 'Refused';
      return { status: 200, body: { ...answer, resultCode: 'Refused', refusalReasonCode: refusal[0], refusalReason: refusal[1] } };
    }
    // without additionalData.manualCapture the merchant account's capture delay applies (here: immediate)
    const autoCapture = (body.additionalData as { manualCapture?: string } | undefined)?.manualCapture !== 'true';
    payment.autoCapture = autoCapture;
    const auth = (body.authenticationData as { attemptAuthentication?: string } | undefined)?.attemptAuthentication;
    if (method.number === '4917610000000000' && auth === 'always') {
      payment.resultCode = 'RedirectShopper';
      payment.challenged = true;
      const expires = this.times.offerExpiresMs;
      if (expires !== undefined)
        this.server.later(expires, () => {
          if (payment.resultCode === 'RedirectShopper') payment.resultCode = 'OfferClosed';
        });
      return {
        status: 200,
        body: {
          resultCode: 'RedirectShopper',
          action: {
            type: 'redirect',
            method: 'GET',
            url: `${this.baseUrl}/challenge/${payment.pspReference}`,
            paymentMethodType: 'scheme',
          },
        },
      };
    }
    if (this.receivedNext > 0) {
      this.receivedNext--;
      payment.resultCode = 'Received';
      return { status: 200, body: { ...answer, resultCode: 'Received' } };
    }
    const pending = this.times.pending?.(amount.value);
    if (pending) {
      // Adyen decides later; its AUTHORISATION notification tells the result
      payment.resultCode = pending.resultCode;
      this.decidedLater++;
      this.server.later(pending.ms, () => this.decide(payment, pending.approve));
      return { status: 200, body: { ...answer, resultCode: pending.resultCode } };
    }
    if (autoCapture) payment.captured = amount.value;
    return { status: 200, body: { ...answer, resultCode: 'Authorised' } };
  }

  private details(body: Record<string, unknown>): StubAnswer {
    const token = (body.details as { redirectResult?: string } | undefined)?.redirectResult ?? '';
    let result: { pspReference?: string; passed?: boolean };
    try {
      result = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof result;
    } catch {
      return apiError(422, '14_018', 'Invalid payload provided');
    }
    const payment = this.payments.get(result.pspReference ?? '');
    if (!payment || payment.resultCode !== 'RedirectShopper') return apiError(422, '14_018', 'Invalid payload provided');
    payment.resultCode = result.passed ? 'Authorised' : 'Refused';
    if (result.passed && payment.autoCapture) payment.captured = payment.amount.value;
    return {
      status: 200,
      body: {
        pspReference: payment.pspReference,
        merchantReference: payment.reference,
        resultCode: payment.resultCode,
        ...(result.passed ? {} : { refusalReasonCode: '11', refusalReason: '3D Not Authenticated' }),
      },
    };
  }

  private modify(psp: string, what: string, body: Record<string, unknown>): StubAnswer {
    const payment = this.payments.get(psp);
    if (!payment || payment.resultCode !== 'Authorised') return apiError(422, '167', 'Original pspReference required for this operation');
    const amount = body.amount as { value: number; currency: string } | undefined;
    const kind = what === 'captures' ? 'capture' : what === 'cancels' ? 'cancel' : 'refund';
    if (kind === 'capture' && (payment.captured > 0 || payment.cancelled || (amount?.value ?? 0) > payment.amount.value))
      return apiError(422, '167', 'Original pspReference required for this operation');
    if (kind === 'cancel' && (payment.captured > 0 || payment.cancelled))
      return apiError(422, '167', 'Original pspReference required for this operation');
    if (kind === 'refund' && payment.refunded + (amount?.value ?? 0) > payment.captured)
      return apiError(422, '137', 'Invalid amount specified');
    if (kind === 'capture') payment.captured = amount!.value;
    const failsLater = kind === 'capture' && this.failCaptureLater(amount!.value);
    const refusedLater = kind === 'refund' && this.times.refuseRefundLater?.(amount!.value) === true;
    if (kind === 'cancel') payment.cancelled = true;
    if (kind === 'refund') payment.refunded += amount!.value;
    const modification: Modification = {
      kind,
      pspReference: this.psp(),
      paymentPspReference: psp,
      reference: String(body.reference),
      ...(amount ? { amount } : {}),
      ...(failsLater ? { failsLater } : {}),
      ...(refusedLater ? { refusedLater } : {}),
    };
    this.modifications.push(modification);
    return {
      status: 201,
      body: {
        merchantAccount: body.merchantAccount,
        paymentPspReference: psp,
        pspReference: modification.pspReference,
        reference: modification.reference,
        status: 'received',
        ...(amount ? { amount } : {}),
      },
    };
  }
}
