import { z } from 'zod';
import { accountId, merchantId, signature } from './common.js';
import { CARD_ID } from '../../core/saved-cards/saved-cards.js';

/** A shopper_id the saved cards are kept under: 1 to 64 printable characters (Basic Multilingual Plane). */
export const SHOPPER_ID = /^[\u0020-\u007E\u00A0-\uD7FF\uE000-\uFFFF]{1,64}$/;

const shopperId = z
  .string({ error: 'is required' })
  .min(1, 'is required')
  .regex(SHOPPER_ID, 'must be 1 to 64 printable characters')
  .meta({ description: 'the merchant’s own id of the shopper, as sent to /v1/checkout', examples: ['shopper-42'] });

const head = { merchant_id: merchantId, account_id: accountId, shopper_id: shopperId, encryption_data: signature };

/** POST /v1/retrievalCards (docs/checkout.md#saved-cards-for-returning-shoppers): a shopper's saved cards. */
export const retrievalCardsSchema = z.object(head);

/** POST /v1/deleteCard (docs/checkout.md#saved-cards-for-returning-shoppers): removes one of a shopper's saved cards. */
export const deleteCardSchema = z.object({
  ...head,
  card_id: z
    .string({ error: 'is required' })
    .min(1, 'is required')
    .regex(CARD_ID, 'must be a card_id as /v1/retrievalCards lists it')
    .meta({ examples: ['card_2b8Xq0lS5uVt7wYz1aBcDeFg'] }),
});
