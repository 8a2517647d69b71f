import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import type { CheckoutSession } from '../../core/records/session.js';
import { chosenCard, type ShopperChoice } from '../../core/saved-cards/saved-cards.js';
import { acceptedBrands, securityCodeLength } from '../../core/records/branding.js';
import type { CardFormErrors } from './card-form.js';

/** What the card form says of saved cards (docs/checkout.md#saved-cards-for-returning-shoppers). */
export type ShopperChoiceRead =
  /** no proven shopper, or a new card not to be saved: the card form alone decides */
  | { kind: 'none' }
  /** a new card the shopper consented to save */
  | { kind: 'save'; choice: ShopperChoice }
  /** one of the shopper's saved cards, with its security code asked again */
  | { kind: 'saved'; choice: ShopperChoice }
  | { kind: 'refused'; errors: CardFormErrors };

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Reads `saved_card`, `saved_security_code` and `save_card` of the card form. They count only for the session's
 * proven shopper on an account that saves cards (anyone else's are ignored), and a saved card only among that
 * shopper's own unexpired ones: a card_id of another shopper, account or merchant is refused like a removed one.
 */
export async function readShopperChoice(
  deps: Pick<CoreDeps, 'store' | 'clock'>,
  account: Account,
  session: CheckoutSession,
  body: Record<string, unknown>,
): Promise<ShopperChoiceRead> {
  const shopper = account.saved_cards ? session.shopper_id : undefined;
  if (!shopper) return { kind: 'none' };
  const cardId = text(body.saved_card);
  if (cardId === '') return text(body.save_card) === '1' ? { kind: 'save', choice: { saveCardFor: shopper } } : { kind: 'none' };
  const card = await chosenCard(deps, account, shopper, cardId);
  const accepted = account.card_brands.length === 0 || (acceptedBrands(account.card_brands) as string[]).includes(card?.brand ?? '');
  if (!card || !accepted) return { kind: 'refused', errors: { saved_card: { key: 'saved.gone' } } };
  const digits = securityCodeLength(card.brand);
  const code = text(body.saved_security_code);
  if (!new RegExp(`^\\d{${digits}}$`).test(code))
    return { kind: 'refused', errors: { saved_security_code: { key: 'error.csc', params: { digits } } } };
  return { kind: 'saved', choice: { savedCard: card, securityCode: code } };
}
