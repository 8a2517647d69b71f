import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { payoutQuerySchema, payoutSchema } from '../schemas/payout-request.js';
import * as answers from '../openapi/answers.js';
import { declareCall } from './declare.js';

// Payouts to beneficiaries.
export const payoutCall = declareCall({
  path: '/v1/payout',
  operationId: 'payout',
  tag: 'Payouts',
  summary: 'Pay out to a beneficiary',
  description: 'Idempotent on request_id. The answer echoes the request and adds amounts, fees, status and identifiers.',
  request: payoutSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.payout,
  answer: answers.payoutAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.payout,
  answerType: 'application/json',
  moreErrors: [403, 422],
  errorBody: 'code',
});

export const payoutQueryCall = declareCall({
  path: '/v1/payout/query',
  operationId: 'payoutQuery',
  tag: 'Payouts',
  summary: 'A payout’s status',
  description: 'By request_id and/or transaction_id.',
  request: payoutQuerySchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.payoutQuery,
  answer: answers.payoutAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.payout,
  answerType: 'application/json',
  moreErrors: [404],
  errorBody: 'code',
});
