import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { retrievalTestClockSchema, testClockAdvanceSchema, testClockDeleteSchema, testClockSchema } from '../schemas/test-clocks.js';
import * as answers from '../openapi/answers.js';
import { declareCall } from './declare.js';

// Test clocks (sandbox accounts only).
export const testClockCall = declareCall({
  path: '/v1/testClock',
  operationId: 'testClock',
  tag: 'Test clocks',
  summary: 'Create a test clock (sandbox accounts only)',
  description:
    'A clock at frozen_time; payments sent with its test_clock_id (/v1/authorise, /v1/checkout) live in its time. Idempotent on ' +
    'request_id. notify_url (optional) receives a test_clock notification (notify_type test_clock, test_clock_id, name, ' +
    'frozen_time, clock_status; signed over merchant_id, account_id, notify_type, notify_id, test_clock_id) each time an advance ends.',
  request: testClockSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.testClock,
  answer: answers.testClockAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});

export const testClockAdvanceCall = declareCall({
  path: '/v1/testClockAdvance',
  operationId: 'testClockAdvance',
  tag: 'Test clocks',
  summary: 'Advance a test clock',
  description:
    'Answers at once with clock_status advancing; then every time-driven step of the clock’s objects due up to frozen_time runs ' +
    'in time order, once each (subscription charges, authorisation and review expiry, challenge expiry, notification retries), ' +
    'and the clock becomes ready with its test_clock notification. A frozen_time not later than the clock’s, or one that would ' +
    'cross more than 1,000 due steps of one object, is refused before anything moves.',
  request: testClockAdvanceSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.testClockAdvance,
  answer: answers.testClockAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});

export const retrievalTestClockCall = declareCall({
  path: '/v1/retrievalTestClock',
  operationId: 'retrievalTestClock',
  tag: 'Test clocks',
  summary: 'List test clocks',
  description: 'The account’s clocks, oldest first, or the one named by test_clock_id.',
  request: retrievalTestClockSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.retrievalTestClock,
  answer: answers.retrievalTestClockAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});

export const testClockDeleteCall = declareCall({
  path: '/v1/testClockDelete',
  operationId: 'testClockDelete',
  tag: 'Test clocks',
  summary: 'Delete a test clock with every object attached',
  description: 'Its payments (their orders become free again), refunds, subscriptions and notifications go with it.',
  request: testClockDeleteSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.testClockDelete,
  answer: answers.testClockAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});
