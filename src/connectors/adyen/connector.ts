import type adyen from '@adyen/api-library';
import { adyenLibrary } from './library.js';
import type { Types } from '@adyen/api-library';
import type {
  AcquirerStatus,
  AuthorisationOutcome,
  CardAuthorisation,
  CardConnector,
  OperationOutcome,
} from '../../core/ports/card-connector.js';
import { AcquirerJournal, AcquirerUnreachable, connectRefused, referenceKind } from '../../core/acquirers/journal.js';
import { PlainHttpAdyenClient } from './http-client.js';
import { cardOf, paymentOutcome } from './map.js';
import type { AcquirerBooks, PaymentReferences } from '../../core/ports/acquirer-books.js';
import { adyenBooks } from './books.js';
import { adyenWebhooks, itemRefusal } from './webhooks.js';
import type { AcquirerWebhooks } from '../../core/ports/acquirer-webhooks.js';

export interface AdyenSettings {
  apiKey: string;
  /** the webhook's HMAC key (hex): Adyen's notifications to this account are checked with it */
  hmacKey: string;
  merchantAccount: string;
  environment: 'TEST' | 'LIVE';
  /** a stub in tests, or the live prefix's URL (docs/connectors.md `api_base`); unset: Adyen's endpoint for the environment */
  apiBase?: string;
  /** where Adyen sends a shopper back from its own challenge page (the gateway's BASE_URL) */
  returnUrl: string;
  timeoutMs?: number;
}

/** Adyen Checkout API version the library's services call (their paths end in it). */
const CHECKOUT_VERSION = 'v72';

/**
 * A card connector on Adyen's Checkout API, through the official `@adyen/api-library`. Every call carries the
 * operation's acquirer reference as Adyen's Idempotency-Key and as the payment's or modification's
 * `reference`. Adyen has no look-up of a payment by reference, so `status` answers from what this connector
 * kept of Adyen's answers: its synchronous replies and its webhooks (AUTHORISATION, CAPTURE, CANCELLATION,
 * REFUND), which Adyen sends for every payment until acknowledged. A reference sent whose answer was lost and
 * whose webhook has not arrived yet is unknown (thrown), never "no".
 */
export class AdyenConnector implements CardConnector {
  readonly code = 'adyen';
  readonly displayName = 'Adyen';
  /** Adyen answers a request sent again under its Idempotency-Key with its first answer, acting once (31 days) */
  readonly repeatIsStatus = true;
  /** 3-D Secure on Adyen's (the issuer's) page: a redirect action, back to the payment's returnUrl with redirectResult */
  readonly ownChallengePage = true;
  /** Adyen's notifications to this account, checked with its HMAC key (docs/connectors.md) */
  readonly webhooks: AcquirerWebhooks;
  private readonly payments: InstanceType<typeof adyen.CheckoutAPI>['PaymentsApi'];
  private readonly modifications: InstanceType<typeof adyen.CheckoutAPI>['ModificationsApi'];

  constructor(
    private readonly settings: AdyenSettings,
    readonly journal: AcquirerJournal,
  ) {
    const adyenLib = adyenLibrary();
    const client = new adyenLib.Client({
      apiKey: settings.apiKey,
      environment: settings.environment === 'LIVE' ? adyenLib.EnvironmentEnum.LIVE : adyenLib.EnvironmentEnum.TEST,
      connectionTimeoutMillis: settings.timeoutMs ?? 20_000,
      ...(settings.environment === 'LIVE' && settings.apiBase ? { liveEndpointUrlPrefix: 'configured-by-api-base' } : {}),
    });
    if (settings.apiBase?.startsWith('http://')) client.httpClient = new PlainHttpAdyenClient(settings.timeoutMs ?? 20_000);
    const checkout = new adyenLib.CheckoutAPI(client);
    this.payments = checkout.PaymentsApi;
    this.modifications = checkout.ModificationsApi;
    if (settings.apiBase) {
      const base = `${settings.apiBase.replace(/\/+$/, '')}/${CHECKOUT_VERSION}`;
      // the services build their URLs from baseUrl: a configured api_base replaces Adyen's host
      (this.payments as unknown as { baseUrl: string }).baseUrl = base;
      (this.modifications as unknown as { baseUrl: string }).baseUrl = base;
    }
    this.webhooks = adyenWebhooks(settings.merchantAccount, settings.hmacKey);
  }

  /** True when a notification item is for this account and signed with its HMAC key (Adyen's HmacValidator). */
  verifyNotification(item: Types.notification.NotificationRequestItem): boolean {
    return itemRefusal(item, this.settings.merchantAccount, this.settings.hmacKey) === undefined;
  }

  async authorise(req: CardAuthorisation): Promise<AuthorisationOutcome> {
    const request: Types.checkout.PaymentRequest = {
      amount: { value: req.amount, currency: req.currency },
      reference: req.reference,
      merchantAccount: this.settings.merchantAccount,
      returnUrl: req.returnUrl ?? this.settings.returnUrl,
      paymentMethod: cardOf(req, this.settings.environment === 'TEST'),
      // capture_mode manual: the gateway captures itself; auto: the merchant account's capture delay applies
      // (set it to immediate, docs/connectors.md)
      ...(req.capture ? {} : { additionalData: { manualCapture: 'true' } }),
      ...(req.recurring
        ? {
            shopperInteraction: 'ContAuth' as Types.checkout.PaymentRequest['shopperInteraction'],
            recurringProcessingModel: 'Subscription' as Types.checkout.PaymentRequest['recurringProcessingModel'],
          }
        : {
            shopperInteraction: 'Ecommerce' as Types.checkout.PaymentRequest['shopperInteraction'],
            authenticationData: {
              attemptAuthentication: req.threeDS === 'do3DS' && !req.mpi ? 'always' : 'never',
              // the challenge as a redirect to a page (action type redirect), not Adyen's in-page component
              threeDSRequestData: { nativeThreeDS: 'disabled' },
            } as Types.checkout.AuthenticationData,
          }),
      ...(req.mpi?.cavv ? { mpiData: { cavv: req.mpi.cavv, eci: req.mpi.eci, xid: req.mpi.xid, dsTransID: req.mpi.dsTransID } } : {}),
      ...(req.browser ? { browserInfo: browserInfo(req.browser) } : {}),
    };
    const res = await this.send(req.reference, () => this.payments.payments(request, { idempotencyKey: req.reference }));
    if ('refused' in res) return { kind: 'error', message: res.refused };
    const threeds = req.threeDS === 'do3DS' && !req.recurring ? 'authenticated (frictionless)' : 'not performed';
    const outcome = paymentOutcome(res, req.reference, threeds);
    if (res.pspReference) await this.journal.object(req.reference, res.pspReference);
    if (!outcome) throw new AcquirerUnreachable('adyen', `payment ${res.resultCode ?? 'without a result'}: its notification decides`);
    // a challenge too: Adyen sends no notification while the shopper has not come back, so a lost RedirectShopper
    // would leave the payment unknown for good; its result then arrives under the challenge's reference. A
    // pending one is not Adyen's final word: its AUTHORISATION notification is
    if (outcome.kind !== 'pending')
      await this.journal.answered(req.reference, { op: 'authorise', outcome, amount: req.amount, currency: req.currency });
    return outcome;
  }

  /** The shopper's return from Adyen's challenge: its redirectResult (`code`) goes to /payments/details. */
  async completeChallenge(connectorRef: string, code: string, reference: string): Promise<AuthorisationOutcome> {
    const res = await this.send(reference, () =>
      this.payments.paymentsDetails({ details: { redirectResult: code } }, { idempotencyKey: reference }),
    );
    if ('refused' in res)
      return { kind: 'declined', connectorRef, reason: 'THREEDS_FAILED', threedsResult: 'authentication failed (challenge)' };
    const outcome = paymentOutcome(res, connectorRef, 'authenticated (challenge passed)');
    if (!outcome) throw new AcquirerUnreachable('adyen', `payment ${res.resultCode ?? 'without a result'}: its notification decides`);
    const final: AuthorisationOutcome =
      outcome.kind === 'declined'
        ? { ...outcome, threedsResult: 'authentication failed (challenge)' }
        : outcome.kind === 'challenge'
          ? { kind: 'declined', connectorRef, reason: 'THREEDS_FAILED', threedsResult: 'authentication not completed' }
          : outcome;
    if (final.kind !== 'pending') await this.journal.answered(reference, { op: 'authorise', outcome: final });
    else await this.journal.object(reference, final.connectorRef);
    return final;
  }

  capture(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome> {
    return this.modify('capture', reference, connectorRef, { amount, currency }, () =>
      this.modifications.captureAuthorisedPayment(
        connectorRef,
        { merchantAccount: this.settings.merchantAccount, amount: { value: amount, currency }, reference },
        { idempotencyKey: reference },
      ),
    );
  }

  void(connectorRef: string, reference: string): Promise<OperationOutcome> {
    return this.modify('void', reference, connectorRef, {}, () =>
      this.modifications.cancelAuthorisedPaymentByPspReference(
        connectorRef,
        { merchantAccount: this.settings.merchantAccount, reference },
        { idempotencyKey: reference },
      ),
    );
  }

  refund(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome> {
    return this.modify('refund', reference, connectorRef, { amount, currency }, () =>
      this.modifications.refundCapturedPayment(
        connectorRef,
        { merchantAccount: this.settings.merchantAccount, amount: { value: amount, currency }, reference },
        { idempotencyKey: reference },
      ),
    );
  }

  /**
   * A modification: Adyen answers `received` and confirms by webhook; a refusal it gave is an outcome, a lost
   * answer is thrown (unknown). A capture or void answers with the authorisation's PSP reference (the
   * payment's), a refund with its own.
   */
  private async modify(
    op: 'capture' | 'void' | 'refund',
    reference: string,
    connectorRef: string,
    asked: { amount?: number; currency?: string },
    act: () => Promise<{ status?: string; pspReference?: string }>,
  ): Promise<OperationOutcome> {
    const res = await this.send(reference, act);
    if ('refused' in res) return { ok: false, message: res.refused };
    const outcome: OperationOutcome =
      res.status === 'received'
        ? { ok: true, connectorRef: op === 'refund' ? (res.pspReference ?? reference) : connectorRef }
        : { ok: false, message: `adyen: ${op} ${res.status ?? 'not received'}` };
    await this.journal.answered(reference, { op, outcome, ...asked });
    return outcome;
  }

  /**
   * What Adyen answered under a reference, by reply or webhook. "No record" only when Adyen definitely has none:
   * never sent, or every attempt refused at connect (no byte reached it). Sent, maybe received, no word yet:
   * unknown (thrown). The merchant's retry of such an order is sent again under the same Idempotency-Key
   * (`repeatIsStatus`): that request is the status probe.
   */
  async status(reference: string): Promise<AcquirerStatus> {
    const kept = await this.journal.answer(reference);
    if (kept) return kept;
    if (!(await this.journal.mayHaveReached(reference))) return undefined;
    // Adyen answered that it took the payment (its PSP reference kept) and decides later: pending until its notification
    const psp =
      referenceKind(reference).op === 'authorise' || referenceKind(reference).op === 'challenge'
        ? await this.journal.object(reference)
        : undefined;
    if (psp) return { op: 'authorise', outcome: { kind: 'pending', connectorRef: psp } };
    throw new AcquirerUnreachable('adyen', 'no answer or notification from Adyen under this reference yet');
  }

  /** What the journal holds of the payment (CardConnector.books): Adyen cannot be read by payment (books.ts). */
  books(refs: PaymentReferences): Promise<AcquirerBooks> {
    return adyenBooks(refs, this.journal);
  }

  /**
   * Sends a call under `reference` (its Idempotency-Key), each attempt noted first: a refusal Adyen gave (4xx
   * but 409, 429 and 422 with error code 704, "already processed or in progress") comes back as `refused`;
   * anything else is thrown as unknown, and an attempt whose connection was refused is noted as never received.
   */
  private async send<T>(reference: string, call: () => Promise<T>): Promise<T | { refused: string }> {
    const attempt = await this.journal.attempt(reference);
    try {
      return await call();
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode ?? 0;
      if (status >= 400 && status < 500 && status !== 429 && status !== 409 && !inProgress(err))
        return { refused: `adyen: ${(err as Error).message}`.slice(0, 300) };
      if (connectRefused(err)) await this.journal.notReceived(reference, attempt);
      throw new AcquirerUnreachable('adyen', err);
    }
  }
}

/**
 * Adyen's answer to a request under an Idempotency-Key whose first request it is still processing (or one
 * already processed with another body): 422 with errorCode 704. The first may be acting: unknown, never a refusal.
 */
function inProgress(err: unknown): boolean {
  const e = err as { errorCode?: string; responseBody?: string };
  return e.errorCode === '704' || /"errorCode"\s*:\s*"704"/.test(e.responseBody ?? '');
}

function browserInfo(b: NonNullable<CardAuthorisation['browser']>): Types.checkout.BrowserInfo {
  return {
    acceptHeader: b.accept_header ?? '*/*',
    userAgent: b.user_agent ?? '',
    language: b.language ?? 'en',
    colorDepth: b.color_depth ?? 24,
    screenHeight: b.screen_height ?? 0,
    screenWidth: b.screen_width ?? 0,
    timeZoneOffset: b.tz_offset ?? 0,
    javaEnabled: b.java_enabled,
  };
}
