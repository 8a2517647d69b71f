import type { AcquirerDispute, AcquirerStatus, ConnectorAccount } from './card-connector.js';

/**
 * An acquirer's webhook event in the gateway's terms (each connector's events.ts maps its own): which of the
 * gateway's references it is about, the acquirer's object for it, and the final answer it carries where the
 * acquirer cannot be asked later (Adyen).
 */
export interface AcquirerEvent {
  /** the acquirer's own event id: an event applied once is acknowledged and skipped after */
  id: string;
  /** the acquirer's event type, for the log */
  type: string;
  reference?: string;
  object?: string;
  answer?: NonNullable<AcquirerStatus>;
  /** also the answer of the challenge reference, when one was sent (an Adyen AUTHORISATION after 3-D Secure) */
  alsoChallenge?: boolean;
  /** what the gateway does not act on: logged as a warning */
  unhandled?: string;
  /** a refund the acquirer accepted failed later: `reference` is the refund's, this says why */
  refundFailed?: { reason: string };
  /** a capture the acquirer accepted failed later: `reference` is the capture's (or its payment's), this says why */
  captureFailed?: { reason: string };
  /** a dispute the acquirer reports on the payment of `reference` (or of `paymentObject`): docs/disputes.md */
  dispute?: AcquirerDispute;
  /** the acquirer's object of the payment when the event does not name the gateway's reference (a Stripe intent) */
  paymentObject?: string;
  /**
   * `object` has moved past the shopper's challenge on the acquirer's own page (a Stripe intent authorised or
   * failed there): a payment still waiting on that challenge is settled now, as the shopper's return would
   */
  challengeDone?: boolean;
  /**
   * the acquirer reports `object` authorised (a Stripe intent requires_capture or succeeded): a payment the
   * gateway settled unpaid meanwhile has that late approval voided (payments/late-approval.ts)
   */
  approved?: boolean;
}

/**
 * Why a webhook was refused before any of its events was read, as the acquirers' own checks tell it (Stripe's
 * constructEvent, Adyen's HmacValidator): `malformed`, the body is not the acquirer's notification at all;
 * `no-signature`, the signature is missing; `bad-signature`, it does not match the account's secret; `too-old`,
 * its timestamp is past the acquirer's tolerance (a replay); `other-account`, it is signed for another account
 * at the acquirer. All but `malformed` are counted as refused webhooks (docs/deployment.md, "Monitoring").
 */
export type WebhookRefusalReason = 'malformed' | 'no-signature' | 'bad-signature' | 'too-old' | 'other-account';

export interface WebhookRefusal {
  reason: WebhookRefusalReason;
  /** the 400's message, naming what was wrong */
  message: string;
}

/** One signed event of a webhook: its acquirer's id and type, and the event in the gateway's terms or why it cannot be read. */
export interface VerifiedEvent {
  id: string;
  type: string;
  read: () => AcquirerEvent;
  /** what is wrong with its shape, naming the field; undefined when `read` can read it */
  problem?: string;
}

export type WebhookVerification =
  | {
      ok: true;
      events: VerifiedEvent[];
      /**
       * the acquirer's acknowledgement of a body it sent (Adyen's `[accepted]`); absent: the result of its one
       * event (`applied`, `duplicate`, `ignored`), as Stripe shows it in its dashboard
       */
      acknowledgement?: string;
    }
  | { ok: false; refusal: WebhookRefusal };

/**
 * An acquirer's webhooks to one account (docs/connectors.md): the body as sent and a way to read its headers,
 * checked with that account's secret only. Every event is verified before any is read or applied.
 */
export interface AcquirerWebhooks {
  verify(body: Buffer, header: (name: string) => string | undefined): WebhookVerification;
}

/**
 * An acquirer whose webhooks the gateway takes at `/connectors/<code>/webhook` (docs/connectors.md), registered by
 * the wiring: the route knows acquirers only through this.
 */
export interface WebhookAcquirer {
  code: string;
  /** its name in the route's answers (`no account of this gateway is routed to Stripe`) */
  displayName: string;
  /** the account's webhooks, checked with its own secret; undefined: the account has no connector of this code */
  webhooksOf(account: ConnectorAccount): AcquirerWebhooks | undefined;
}
