import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { cancelSubscriptionSchema } from '../schemas/subscription.js';
import * as answers from '../openapi/answers.js';
import { declareCall } from './declare.js';

// Subscription contracts.
export const cancelSubscriptionCall = declareCall({
  path: '/v1/cancelsubscription',
  operationId: 'cancelSubscription',
  tag: 'Subscriptions',
  summary: 'Cancel a subscription contract',
  description: 'The contract becomes Inactived at once; a charge already created for this period is still made unless cancelled.',
  request: cancelSubscriptionSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.cancelsubscription,
  answer: answers.cancelSubscriptionAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.cancelsubscription,
  answerType: 'application/json',
  errorBody: 'code',
});
