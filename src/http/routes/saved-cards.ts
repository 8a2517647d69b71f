import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import {
  assertKeepsCardsFor,
  assertSavedCards,
  deleteCardAnswer,
  deleteSavedCard,
  noSuchCard,
  savedCardsAnswer,
  savedCardsOf,
} from '../../core/saved-cards/saved-cards.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { deleteCardCall, retrievalCardsCall } from '../calls/saved-cards.js';

/** POST /v1/retrievalCards and /v1/deleteCard: the merchant lists and removes a shopper's saved cards (JSON). */
export function savedCardsRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(retrievalCardsCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(retrievalCardsCall, body));
    const input = parseOrThrow(retrievalCardsCall.request, body);
    assertSavedCards(account);
    // the shopper_id as sent: a card-shaped one reads masked, and names no shopper's cards
    assertKeepsCardsFor(body.shopper_id);
    const cards = await savedCardsOf(deps, account, input.shopper_id);
    res.locals.outcome = { cards: cards.length };
    res.json(savedCardsAnswer(account, input.shopper_id, cards, deps.timezone));
  });
  router.post(deleteCardCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(deleteCardCall, body));
    const input = parseOrThrow(deleteCardCall.request, body);
    assertSavedCards(account);
    // the shopper_id as sent: a card-shaped one reads masked, and names no shopper's cards
    assertKeepsCardsFor(body.shopper_id);
    if (!(await deleteSavedCard(deps, account, input.shopper_id, input.card_id))) throw noSuchCard();
    res.locals.outcome = { card_id: input.card_id };
    res.json(deleteCardAnswer(account, input.shopper_id, input.card_id));
  });
  return router;
}
