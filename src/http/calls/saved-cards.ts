import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { deleteCardSchema, retrievalCardsSchema } from '../schemas/saved-cards.js';
import * as answers from '../openapi/answers.js';
import { declareCall } from './declare.js';

// A shopper's saved cards.
export const retrievalCardsCall = declareCall({
  path: '/v1/retrievalCards',
  operationId: 'retrievalCards',
  tag: 'Saved cards',
  summary: 'A shopper’s saved cards',
  description:
    'The cards the shopper (shopper_id, as sent to /v1/checkout) saved on the hosted card page of this account, newest first, ' +
    'expired ones too: brand, last 4 digits and expiry, never the number. 400 when the account does not save cards (saved_cards).',
  request: retrievalCardsSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.retrievalCards,
  answer: answers.retrievalCardsAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});

export const deleteCardCall = declareCall({
  path: '/v1/deleteCard',
  operationId: 'deleteCard',
  tag: 'Saved cards',
  summary: 'Remove a shopper’s saved card',
  description:
    'Removes the card and its vault token: the card page no longer offers it. A card_id this shopper does not have (never ' +
    'saved, removed, or another shopper’s) is a 404 naming card_id.',
  request: deleteCardSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.deleteCard,
  answer: answers.deleteCardAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  moreErrors: [404],
  errorBody: 'return_status',
});
