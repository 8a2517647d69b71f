import type { z } from 'zod';
import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { authoriseSchema, checkoutSchema } from '../schemas/payment-request.js';
import { cancelSchema, captureSchema, refundSchema, reviewSchema } from '../schemas/operations.js';
import { retrievalRefundSchema, retrievalTransSchema } from '../schemas/retrieval.js';
import { cancelSubscriptionSchema, resendSchema } from '../schemas/subscription.js';
import { payoutQuerySchema, payoutSchema } from '../schemas/payout-request.js';
import { optimiseSchema } from '../schemas/optimise.js';
import { retrievalTestClockSchema, testClockAdvanceSchema, testClockDeleteSchema, testClockSchema } from '../schemas/test-clocks.js';
import { deleteCardSchema, retrievalCardsSchema } from '../schemas/saved-cards.js';
import { disputeAcceptSchema, disputeEvidenceSchema, retrievalDisputeSchema } from '../schemas/dispute.js';
import * as answers from './answers.js';
import { page, seeOther, type Responses } from './responses.js';

/** One /v1 call as the OpenAPI document describes it: the zod schema the route checks, its answer, its signatures. */
export interface CallSpec {
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  request: z.ZodType;
  /** values signed, in order, then sign_key; `transaction_id…` stands for every transaction_id of the array */
  requestSignature: readonly string[];
  answer: z.ZodType;
  answerSignature: readonly string[];
  /** the answer's media type */
  answerType: 'application/json' | 'application/xml' | 'text/html';
  /** HTTP statuses of error answers this call can give, besides those of every call (CALL_ERRORS) */
  moreErrors?: number[];
  /** answers besides the call's own and its errors (the loading page's form post to /v1/checkout) */
  moreResponses?: Responses;
}

/**
 * The error statuses of every signed call: a refused request, a wrong signature, an Idempotency-Key conflict
 * (every call takes the header), a body over the limit or in an unread charset, a rate limit, the store.
 */
export const CALL_ERRORS = [400, 401, 409, 413, 415, 429, 503];

const batch = (array: string) => [...REQUEST_SIGNATURE_FIELDS.batch, `${array}[].transaction_id…`];

export const CALLS: CallSpec[] = [
  {
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
  },
  {
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
  },
  {
    path: '/v1/capture',
    operationId: 'capture',
    tag: 'Operations',
    summary: 'Capture authorised payments (at most 50)',
    description: 'Each order is applied on its own; one order’s failure is its capture_status 0 and error_message.',
    request: captureSchema,
    requestSignature: batch('capture_orders'),
    answer: answers.captureAnswerSchema,
    answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
    answerType: 'application/json',
  },
  {
    path: '/v1/cancel',
    operationId: 'cancel',
    tag: 'Operations',
    summary: 'Cancel (void) authorisations (at most 50)',
    description: 'amount must equal the payment’s amount.',
    request: cancelSchema,
    requestSignature: batch('cancel_orders'),
    answer: answers.cancelAnswerSchema,
    answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
    answerType: 'application/json',
  },
  {
    path: '/v1/review',
    operationId: 'review',
    tag: 'Operations',
    summary: 'Approve (1) or reject (0) payments held for review (at most 100)',
    description: 'review_flag 1 moves the payment to 3000 (3100 with capture_mode auto), 0 voids it (4200).',
    request: reviewSchema,
    requestSignature: batch('review_orders'),
    answer: answers.reviewAnswerSchema,
    answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
    answerType: 'application/json',
  },
  {
    path: '/v1/refund',
    operationId: 'refund',
    tag: 'Operations',
    summary: 'Refund captured payments, fully or in parts (at most 50)',
    description: 'amount is the payment’s amount, refund_amount the amount to refund; refunds of a payment add up to at most its capture.',
    request: refundSchema,
    requestSignature: batch('refund_orders'),
    answer: answers.refundAnswerSchema,
    answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
    answerType: 'application/json',
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    path: '/v1/retrievalDispute',
    operationId: 'retrievalDispute',
    tag: 'Disputes',
    summary: 'Search disputes (chargebacks)',
    description:
      'By transaction_id, order_no or dispute_id lists and/or a start_date/end_date range of opening dates; newest first, at most ' +
      '100, has_more 1 when more matched; no criterion: the newest disputes. Form fields or JSON.',
    request: retrievalDisputeSchema,
    requestSignature: REQUEST_SIGNATURE_FIELDS.retrievalDispute,
    answer: answers.retrievalDisputeAnswerSchema,
    answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
    answerType: 'application/json',
  },
  {
    path: '/v1/disputeEvidence',
    operationId: 'disputeEvidence',
    tag: 'Disputes',
    summary: 'Save (submit 0) or send (submit 1) a dispute’s evidence',
    description:
      'Each evidence field at most 20,000 characters. submit 1 sends it to the acquirer and puts the dispute under_review; the ' +
      'decision (won or lost) follows, in the sandbox 1 day later. Evidence after due_date, under review or on a closed dispute is ' +
      'refused with return_status 0 and a return_message saying why. Every dispute status change is a notification to the ' +
      'payment’s notify_url: notify_type dispute, notify_id, merchant_id, account_id and the dispute’s fields as answered here ' +
      '(dispute_id, transaction_id, order_no, dispute_amount, currency, dispute_reason, dispute_status, opened_date, due_date, ' +
      'closed_date, evidence_submitted_date and the four evidence fields), signed over merchant_id, account_id, notify_type, ' +
      'notify_id, order_no.',
    request: disputeEvidenceSchema,
    requestSignature: REQUEST_SIGNATURE_FIELDS.dispute,
    answer: answers.disputeCallAnswerSchema,
    answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
    answerType: 'application/json',
  },
  {
    path: '/v1/disputeAccept',
    operationId: 'disputeAccept',
    tag: 'Disputes',
    summary: 'Accept a dispute (it is lost at once)',
    description:
      'The amount stays with the card holder and the fee is kept. Refused (return_status 0) under review and on a closed dispute.',
    request: disputeAcceptSchema,
    requestSignature: REQUEST_SIGNATURE_FIELDS.dispute,
    answer: answers.disputeCallAnswerSchema,
    answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
    answerType: 'application/json',
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
];
