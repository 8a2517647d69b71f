import { RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { cancelSchema, captureSchema, refundSchema, reviewSchema } from '../schemas/operations.js';
import * as answers from '../openapi/answers.js';
import { batch, declareCall } from './declare.js';

// The follow-up operations on payments, each a batch of orders.
export const captureCall = declareCall({
  path: '/v1/capture',
  operationId: 'capture',
  tag: 'Operations',
  summary: 'Capture authorised payments (at most 50)',
  description: 'Each order is applied on its own; one order’s failure is its capture_status 0 and error_message.',
  request: captureSchema,
  ...batch('capture_orders'),
  answer: answers.captureAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});

export const cancelCall = declareCall({
  path: '/v1/cancel',
  operationId: 'cancel',
  tag: 'Operations',
  summary: 'Cancel (void) authorisations (at most 50)',
  description: 'amount must equal the payment’s amount.',
  request: cancelSchema,
  ...batch('cancel_orders'),
  answer: answers.cancelAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});

export const reviewCall = declareCall({
  path: '/v1/review',
  operationId: 'review',
  tag: 'Operations',
  summary: 'Approve (1) or reject (0) payments held for review (at most 100)',
  description: 'review_flag 1 moves the payment to 3000 (3100 with capture_mode auto), 0 voids it (4200).',
  request: reviewSchema,
  ...batch('review_orders'),
  answer: answers.reviewAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});

export const refundCall = declareCall({
  path: '/v1/refund',
  operationId: 'refund',
  tag: 'Operations',
  summary: 'Refund captured payments, fully or in parts (at most 50)',
  description: 'amount is the payment’s amount, refund_amount the amount to refund; refunds of a payment add up to at most its capture.',
  request: refundSchema,
  ...batch('refund_orders'),
  answer: answers.refundAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});
