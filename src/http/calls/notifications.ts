import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { resendSchema } from '../schemas/subscription.js';
import * as answers from '../openapi/answers.js';
import { declareCall } from './declare.js';

// Notifications sent again.
export const resendNotificationsCall = declareCall({
  path: '/v1/notifications/resend',
  operationId: 'resendNotifications',
  tag: 'Notifications',
  summary: 'Send notifications again (same notify_id)',
  description: 'By notify_id, or every notification of an order_no.',
  request: resendSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.resend,
  answer: answers.resendAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  moreErrors: [404],
  errorBody: 'code',
});
