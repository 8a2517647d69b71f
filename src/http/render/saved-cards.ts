import type { Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import { hostedUrls, type CheckoutSession } from '../../core/records/session.js';
import { offeredCards, type SavedCard } from '../../core/saved-cards/saved-cards.js';
import { savedCardExpiry } from '../../core/records/saved-card-record.js';
import { BRAND_NAMES, securityCodeLength, type CardBrandCode } from '../../core/records/branding.js';
import { BRAND_MARKS } from './brand-marks.js';
import { t } from '../../i18n/index.js';

/** A saved card's label in the page's language: brand, last 4 and expiry (docs/checkout.md#saved-cards-for-returning-shoppers). */
export function savedCardLabel(lang: string, card: SavedCard): string {
  const brand = card.brand in BRAND_NAMES ? BRAND_NAMES[card.brand as CardBrandCode] : card.brand;
  return t(lang, 'saved.card', { brand, last4: card.card_last4, expiry: savedCardExpiry(card) });
}

/**
 * What views/partials/saved-cards.ejs shows, set in res.locals before the card page renders: for a proven shopper
 * of an account that saves cards, the saving consent and the shopper's unexpired cards; for anyone else nothing.
 */
export async function prepareSavedCards(
  deps: CoreDeps,
  res: Response,
  account: Account,
  session: CheckoutSession,
  lang: string,
  chosen?: string,
): Promise<void> {
  const shopper = session.shopper_id;
  if (!account.saved_cards || !shopper) {
    res.locals.savedCards = undefined;
    return;
  }
  const cards = await offeredCards(deps, account, shopper);
  const picked = cards.find((c) => c.card_id === chosen) ?? cards[0];
  res.locals.savedCards = {
    removeUrl: `${hostedUrls(deps.baseUrl, session.merchant_id, session.session_id).card}/saved-cards/remove`,
    cards: cards.map((c) => ({
      id: c.card_id,
      label: savedCardLabel(lang, c),
      checked: c === picked && chosen !== '',
      cscLength: securityCodeLength(c.brand),
      // the brand's mark beside the label, as on the card fields (none for a brand without one)
      mark: c.brand in BRAND_MARKS ? BRAND_MARKS[c.brand as CardBrandCode] : '',
    })),
    newChecked: cards.length === 0 || chosen === '',
  };
}
