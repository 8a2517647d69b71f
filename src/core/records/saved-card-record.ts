// A shopper's saved card: a leaf record file (kernel only), so ports/store.ts can name it (docs/architecture.md).
import { expiryPassed, type CardSummary } from '../kernel/cards.js';

/**
 * A card a shopper saved on the hosted card page (docs/checkout.md#saved-cards-for-returning-shoppers): the vault's token bound to (merchant, account,
 * shopper_id). It is stored under a key built from all three, so no other shopper, account or merchant can list
 * or charge it; the number stays in the vault (sealed), the security code is never kept.
 */
export interface SavedCard {
  version: number;
  /** what the page's radio input and /v1/deleteCard name it by */
  card_id: string;
  merchant_id: string;
  account_id: string;
  /** the merchant's shopper_id, as the checkout carried it (card numbers in it masked) */
  shopper_id: string;
  /** the vault token charged when the shopper pays with it */
  token: string;
  brand: string;
  card_last4: string;
  exp_month: string;
  exp_year: string;
  /**
   * the vault's keyed hash of the card number (an HMAC: the number cannot be guessed back from it), so the same
   * card saved again is known without its number; absent on a card saved before it was kept
   */
  card_hash?: string;
  created_at: number;
  /** the payment that saved it */
  transaction_id: string;
}

/** Where one shopper's saved cards live: the records and their index are keyed by all three. */
export interface ShopperScope {
  merchantId: string;
  accountId: string;
  shopperId: string;
}

/** A card past its expiry is not offered on the page (it is still listed to the merchant, and deletable). */
export function savedCardExpired(card: Pick<SavedCard, 'exp_month' | 'exp_year'>, now: number): boolean {
  return expiryPassed(card.exp_month, card.exp_year, now);
}

/** A saved card's card_hash of a card number: the vault's keyed hash (its fingerprint), never the number. */
export function savedCardHash(vault: { fingerprint(text: string): string }, pan: string): string {
  return vault.fingerprint(`saved card\n${pan}`);
}

/** The expiry as shown and answered: MM/YYYY. */
export function savedCardExpiry(card: Pick<SavedCard, 'exp_month' | 'exp_year'>): string {
  const year = card.exp_year.length === 2 ? `20${card.exp_year}` : card.exp_year;
  return `${card.exp_month.padStart(2, '0')}/${year}`;
}

/** The saved card an approved payment leaves, under the token made for it. */
export function savedCardOf(
  p: { merchant_id: string; account_id: string; transaction_id: string; card?: CardSummary | undefined },
  save: { shopper_id: string; token: string; card_hash?: string },
  cardId: string,
  now: number,
): SavedCard {
  return {
    version: 0,
    card_id: cardId,
    merchant_id: p.merchant_id,
    account_id: p.account_id,
    shopper_id: save.shopper_id,
    token: save.token,
    brand: p.card?.brand ?? 'UNKNOWN',
    card_last4: p.card?.last4 ?? '',
    exp_month: p.card?.exp_month ?? '',
    exp_year: p.card?.exp_year ?? '',
    ...(save.card_hash ? { card_hash: save.card_hash } : {}),
    created_at: now,
    transaction_id: p.transaction_id,
  };
}
