import { createHmac } from 'node:crypto';
import type { Minor } from '../kernel/money.js';

/**
 * A hosted checkout waiting for the shopper. The stored session is the truth: the loading page's form post
 * must carry the values stored here, and the card page charges only what the signed request asked for.
 */
export interface CheckoutSession {
  version: number;
  session_id: string;
  merchant_id: string;
  account_id: string;
  order_no: string;
  currency: string;
  amount: Minor;
  /** the signed request as the merchant sent it (checkout requests carry no card data) */
  request: Record<string, unknown>;
  /** the request's fingerprint: the payment made from this session is idempotent on it */
  fingerprint: string;
  /** the merchant's caller address, shown in the loading form (source_request_ip) */
  source_ip: string;
  /** the merchant's own addresses, where the result page sends the shopper at the end */
  return_url: string;
  cancel_url: string;
  /**
   * the shopper the merchant proved (docs/checkout.md#saved-cards-for-returning-shoppers: shopper_signature or strict signing) on an account that saves
   * cards: the card page offers this shopper's saved cards and saving one; absent otherwise
   */
  shopper_id?: string;
  /** open: waiting for a card; paying: a card was handed to the core; cancelled: the shopper gave up */
  state: 'open' | 'paying' | 'cancelled';
  created_at: number;
  /** after this (deps.clock) an open session takes no card */
  expires_at: number;
}

/**
 * How long a session no card was paid with stays readable after it expires: a shopper who comes back to the page
 * is told it expired (410, framed by the merchant's storefront), not that it was never there (404).
 */
export const EXPIRED_SESSION_KEPT_MS = 3_600_000;

/** How long a session that took a card or was cancelled stays readable (its result page, replays). */
export const SETTLED_SESSION_TTL_MS = 24 * 3_600_000;

/** The gateway's own addresses of one session's hosted pages. */
export function hostedUrls(baseUrl: string, merchantId: string, sessionId: string) {
  const root = `${baseUrl}/v1/checkout/${encodeURIComponent(merchantId)}/${encodeURIComponent(sessionId)}`;
  return { card: root, pay: `${root}/pay`, cancel: `${root}/cancel`, result: `${root}/result` };
}

/**
 * The value the loading form carries as `encryption_data` and `signInfo`: an HMAC of the session id under
 * the account's key, never the merchant's own signature. The page reaches the shopper's browser; had it
 * carried the merchant's signature, anyone could sign a new /v1/checkout for the same order with other
 * unsigned terms. This value cannot pass as a request signature: it is not SHA-256 over any field list.
 */
export function formSignature(signKey: string, sessionId: string): string {
  return createHmac('sha256', signKey).update(`checkout-form:${sessionId}`, 'utf8').digest('hex');
}
