import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { authoriseSchema, checkoutSchema } from '../schemas/payment-request.js';
import { optimiseSchema } from '../schemas/optimise.js';
import * as answers from '../openapi/answers.js';
import { page, seeOther } from '../openapi/responses.js';
import { declareCall } from './declare.js';

// Payments: the direct card payment, the hosted checkout and the payment methods' order.
export const authoriseCall = declareCall({
  path: '/v1/authorise',
  operationId: 'authorise',
  tag: 'Payments',
  summary: 'Direct card payment',
  description:
    'Authorises (and with capture_mode auto, captures) a card payment, or pays with token_id. Answered by the respon XML ' +
    'document; refusals are answered as respon documents too, unless Accept prefers application/json. Idempotent on order_no.',
  request: authoriseSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.authorise,
  answer: answers.paymentAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.payment,
  answerType: 'application/xml',
  // MERCHANT_SUSPENDED (docs/operators.md)
  moreErrors: [403],
  errorBody: 'respon',
});

export const checkoutCall = declareCall({
  path: '/v1/checkout',
  operationId: 'checkout',
  tag: 'Payments',
  summary: 'Hosted (redirect or iFrame) checkout',
  description:
    'Stores the order and answers the self-submitting loading page (text/html); with Accept: application/json it answers ' +
    '{checkout_url, expires_at} for an iFrame instead. The shopper’s result comes back signed in the return_url query.',
  request: checkoutSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.checkout,
  answer: answers.checkoutJsonAnswerSchema,
  answerSignature: [],
  answerType: 'application/json',
  moreErrors: [403],
  moreResponses: {
    303: seeOther('The loading page’s own form post (checkout_token): the shopper goes on to the hosted card page'),
    400: page('The loading page’s form post with values other than the stored order’s'),
    404: page('The loading page’s form post naming no checkout session'),
  },
  errorBody: 'code',
});

/** The hosted pages of one checkout session live under the call's path (docs/checkout.md). */
export const CHECKOUT_PAGES = `${checkoutCall.path}/:merchantId/:sessionId`;

export const optimiseCall = declareCall({
  path: '/v1/optimise',
  operationId: 'optimise',
  tag: 'Payments',
  summary: 'Optimise payment methods',
  description:
    'The payment methods of the account that fit the order, best first, scored from the account’s settings and the approval ' +
    'rates the gateway measured by method, card brand and country; reasons explain each score.',
  request: optimiseSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.optimise,
  answer: answers.optimiseAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.optimise,
  answerType: 'application/json',
  errorBody: 'return_status',
});
