import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { AuthoriseCommand } from '../authorisation/authorise.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { compactDate } from '../kernel/dates.js';
import { maskIdentifier } from '../kernel/cards.js';
import { requestSignatureMatches, RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import { savedCardExpired, savedCardExpiry, savedCardHash, type SavedCard, type ShopperScope } from '../records/saved-card-record.js';

export type { SavedCard, ShopperScope } from '../records/saved-card-record.js';

/** At most this many saved cards of one shopper are listed (and offered): the newest. */
export const SAVED_CARDS_LIMIT = 20;

/** A card_id as the gateway makes it (ids.opaque('card')): anything else names no card, whoever sends it. */
export const CARD_ID = /^card_[0-9A-Za-z_-]{8,64}$/;

/**
 * The shopper a /v1/checkout names, when the account saves cards and the merchant proves the shopper_id: by strict
 * signing (the X-Signature over the whole raw body, checked before the route) or by shopper_signature = SHA-256 of
 * merchant_id + account_id + shopper_id + sign_key (docs/checkout.md#saved-cards-for-returning-shoppers). Anything else is ignored, never refused: the page
 * then offers and saves nothing.
 */
export function provenShopper(account: Account, shopperId: string, shopperSignature: unknown): string | undefined {
  if (!account.saved_cards || shopperId === '' || !keepsCardsFor(shopperId)) return undefined;
  if (account.signature_mode === 'strict') return shopperId;
  if (typeof shopperSignature !== 'string' || !/^[0-9a-fA-F]{64}$/.test(shopperSignature)) return undefined;
  return requestSignatureMatches(shopperSignature, [account.merchant_id, account.account_id, shopperId], account.sign_key)
    ? shopperId
    : undefined;
}

/**
 * False for a shopper_id that holds a card-shaped number (a loyalty or account number that passes the Luhn check
 * in a card range). Such an id is kept only masked (first 6, ***, last 4: docs/security.md#card-data), and two shoppers whose ids
 * share those digits would then share one list of saved cards: no card is saved or offered under it.
 */
export function keepsCardsFor(shopperId: string): boolean {
  return maskIdentifier(shopperId) === shopperId;
}

/** Refuses a merchant's call naming a shopper_id no cards are kept under (keepsCardsFor), naming the field. */
export function assertKeepsCardsFor(shopperId: unknown): void {
  if (typeof shopperId === 'string' && !keepsCardsFor(shopperId))
    throw invalidField('shopper_id', 'holds a card number; saved cards are never kept under such a shopper_id');
}

export const scopeOf = (account: Account, shopperId: string): ShopperScope => ({
  merchantId: account.merchant_id,
  accountId: account.account_id,
  shopperId,
});

/** A shopper's cards as the merchant lists them (expired ones too), newest first. */
export function savedCardsOf(deps: Pick<CoreDeps, 'store'>, account: Account, shopperId: string): Promise<SavedCard[]> {
  return deps.store.savedCardsOf(scopeOf(account, shopperId), SAVED_CARDS_LIMIT);
}

/** The cards the card page offers the shopper: not expired, newest first. */
export async function offeredCards(deps: Pick<CoreDeps, 'store' | 'clock'>, account: Account, shopperId: string): Promise<SavedCard[]> {
  const now = deps.clock.now();
  return (await savedCardsOf(deps, account, shopperId)).filter((c) => !savedCardExpired(c, now));
}

/**
 * The saved card a shopper chose on the page, only among that shopper's own, unexpired cards: a card_id of another
 * shopper, account or merchant names nothing here (its key is built from all three).
 */
export async function chosenCard(
  deps: Pick<CoreDeps, 'store' | 'clock'>,
  account: Account,
  shopperId: string,
  cardId: string,
): Promise<SavedCard | undefined> {
  if (!CARD_ID.test(cardId)) return undefined;
  const card = await deps.store.getSavedCard(scopeOf(account, shopperId), cardId);
  return card && !savedCardExpired(card, deps.clock.now()) ? card : undefined;
}

/**
 * Removes one of a shopper's saved cards and its vault token, in one step. false when the shopper has no such card
 * (never saved, already removed, or another shopper's). Payments made with it keep their own records.
 */
export async function deleteSavedCard(
  deps: Pick<CoreDeps, 'store'>,
  account: Account,
  shopperId: string,
  cardId: string,
): Promise<boolean> {
  if (!CARD_ID.test(cardId)) return false;
  const scope = scopeOf(account, shopperId);
  for (let attempt = 0; attempt < 3; attempt++) {
    const card = await deps.store.getSavedCard(scope, cardId);
    if (!card) return false;
    const ok = await deps.store.commit({
      merchantId: account.merchant_id,
      dropSavedCards: [{ scope, cardId, expected: card.version }],
      dropCards: [card.token],
    });
    if (ok) return true;
  }
  throw new GatewayError('STORE_UNAVAILABLE', 'could not remove the saved card; try again');
}

/**
 * The shopper's consent to save the card typed, unless the shopper has that card saved already (the same
 * number and expiry): paying with it again keeps one saved card, not a second one under a second token. A
 * reissued card (a new expiry) is saved beside the old one, which the page stops offering once it expires.
 */
export async function saveChoiceFor(
  deps: Pick<CoreDeps, 'store' | 'vault'>,
  account: Account,
  choice: { saveCardFor: string },
  card: { pan: string; expMonth: string; expYear: string },
): Promise<ShopperChoice | undefined> {
  const hash = savedCardHash(deps.vault, card.pan);
  const expiry = savedCardExpiry({ exp_month: card.expMonth, exp_year: card.expYear });
  const saved = await savedCardsOf(deps, account, choice.saveCardFor);
  return saved.some((c) => c.card_hash === hash && savedCardExpiry(c) === expiry) ? undefined : choice;
}

/** What the proven shopper chose on the card page: save the card typed, or pay with a saved one. */
export type ShopperChoice = { saveCardFor: string } | { savedCard: SavedCard; securityCode: string };

/**
 * The saved-card part of a hosted page's payment command. A saved card is a token payment (its vault token as
 * token_id, under the same claim as any payment) with the security code asked again; its token is not handed to
 * the merchant as the payment's token_id (the merchant lists the shopper's cards by card_id).
 */
export function shopperCommand(cmd: AuthoriseCommand, choice: ShopperChoice): void {
  if ('saveCardFor' in choice) {
    cmd.saveCardFor = choice.saveCardFor;
    return;
  }
  delete cmd.card;
  cmd.order = { ...cmd.order, token_id: choice.savedCard.token, token_flag: 'NO' };
  cmd.tokenSecurityCode = choice.securityCode;
  cmd.savedCardId = choice.savedCard.card_id;
  cmd.meta = { ...cmd.meta, saved_card: choice.savedCard.card_id };
}

/** One saved card as /v1/retrievalCards answers it. */
export interface SavedCardView {
  card_id: string;
  brand: string;
  card_last4: string;
  /** MM/YYYY */
  expiry: string;
  /** YYYYMMDDhhmmss in GATEWAY_TIMEZONE */
  created_date: string;
}

export interface SavedCardsAnswer {
  merchant_id: string;
  account_id: string;
  shopper_id: string;
  return_status: '1';
  return_message: string;
  cards: SavedCardView[];
  encryption_data: string;
}

export interface DeleteCardAnswer {
  merchant_id: string;
  account_id: string;
  shopper_id: string;
  card_id: string;
  return_status: '1';
  return_message: string;
  encryption_data: string;
}

/** The saved cards the merchant's /v1/retrievalCards lists: brand, last 4 and expiry, never the number or token. */
export function savedCardsAnswer(account: Account, shopperId: string, cards: SavedCard[], timezone: string): SavedCardsAnswer {
  const answer = {
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    shopper_id: shopperId,
    return_status: '1' as const,
    return_message: 'OK',
    cards: cards.map((c) => ({
      card_id: c.card_id,
      brand: c.brand,
      card_last4: c.card_last4,
      expiry: savedCardExpiry(c),
      created_date: compactDate(c.created_at, timezone),
    })),
  };
  return { ...answer, encryption_data: signFields(answer, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key) };
}

/** /v1/deleteCard's answer, once the card is removed (a card the shopper does not have is a 404 naming card_id). */
export function deleteCardAnswer(account: Account, shopperId: string, cardId: string): DeleteCardAnswer {
  const answer = {
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    shopper_id: shopperId,
    card_id: cardId,
    return_status: '1' as const,
    return_message: 'OK',
  };
  return { ...answer, encryption_data: signFields(answer, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key) };
}

/** A card_id the shopper has no saved card under (never saved, removed, or another's): 404, as other look-ups. */
export const noSuchCard = () => new GatewayError('NOT_FOUND', 'card_id: this shopper has no saved card with this card_id', 'card_id');

/** The account must save cards for its saved-card calls to answer anything. */
export function assertSavedCards(account: Account): void {
  if (!account.saved_cards) throw invalidField('shopper_id', 'saved cards are not enabled for this account (saved_cards)');
}
