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
  /** the loading page's hidden fields as rendered; a form post that disagrees with them is refused */
  form: Record<string, string>;
  /** the merchant's own addresses, where the result page sends the shopper at the end */
  return_url: string;
  cancel_url: string;
  /** open: waiting for a card; paying: a card was handed to the core; cancelled: the shopper gave up */
  state: 'open' | 'paying' | 'cancelled';
  created_at: number;
  /** after this (deps.clock) an open session takes no card */
  expires_at: number;
}

/** How long a session that took a card or was cancelled stays readable (its result page, replays). */
export const SETTLED_SESSION_TTL_MS = 24 * 3_600_000;

/** The gateway's own addresses of one session's hosted pages. */
export function hostedUrls(baseUrl: string, merchantId: string, sessionId: string) {
  const root = `${baseUrl}/v1/checkout/${encodeURIComponent(merchantId)}/${encodeURIComponent(sessionId)}`;
  return { card: root, pay: `${root}/pay`, cancel: `${root}/cancel`, result: `${root}/result` };
}
