import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { retrievalRefundSchema, retrievalTransSchema } from '../schemas/retrieval.js';
import * as answers from '../openapi/answers.js';
import { declareCall } from './declare.js';

// The payment and refund queries.
export const retrievalTransCall = declareCall({
  path: '/v1/retrievalTrans',
  operationId: 'retrievalTrans',
  tag: 'Queries',
  summary: 'Query payments (caller IP must be in allowed_ips)',
  description:
    'Orders named by order_no and/or transaction_id (comma-separated or a JSON array, at most 100 in all); none named: the ' +
    'account’s latest payments, optionally between start_date and end_date. Form fields or JSON.',
  request: retrievalTransSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.retrieval,
  answer: answers.retrievalTransAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  moreErrors: [403],
  errorBody: 'return_status',
});

export const retrievalRefundCall = declareCall({
  path: '/v1/retrievalRefund',
  operationId: 'retrievalRefund',
  tag: 'Queries',
  summary: 'Search refunds',
  description: 'By transaction_id, order_no or refund_reference_id lists and/or a start_date/end_date range; newest first, at most 100.',
  request: retrievalRefundSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.retrieval,
  answer: answers.retrievalRefundAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  moreErrors: [403],
  errorBody: 'return_status',
});
