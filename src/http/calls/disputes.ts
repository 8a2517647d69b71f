import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { disputeAcceptSchema, disputeEvidenceSchema, retrievalDisputeSchema } from '../schemas/dispute.js';
import * as answers from '../openapi/answers.js';
import { declareCall } from './declare.js';

// Disputes (chargebacks): search, evidence and accept.
export const retrievalDisputeCall = declareCall({
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
  errorBody: 'return_status',
});

export const disputeEvidenceCall = declareCall({
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
  errorBody: 'return_status',
});

export const disputeAcceptCall = declareCall({
  path: '/v1/disputeAccept',
  operationId: 'disputeAccept',
  tag: 'Disputes',
  summary: 'Accept a dispute (it is lost at once)',
  description: 'The amount stays with the card holder and the fee is kept. Refused (return_status 0) under review and on a closed dispute.',
  request: disputeAcceptSchema,
  requestSignature: REQUEST_SIGNATURE_FIELDS.dispute,
  answer: answers.disputeCallAnswerSchema,
  answerSignature: RESPONSE_SIGNATURE_FIELDS.batch,
  answerType: 'application/json',
  errorBody: 'return_status',
});
