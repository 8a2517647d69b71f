import { z } from 'zod';
import { EVIDENCE_MAX_CHARS } from '../../core/records/dispute-record.js';
import { accountId, merchantId, signature } from './common.js';
import { nameList } from './retrieval.js';

/** What a dispute_id looks like: `<transaction_id>-D<NN>` (any text of that alphabet, so an unknown one is answered). */
const disputeId = z
  .string({ error: 'is required' })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a dispute_id such as "20261121100000ABCD1234-D01"');

const evidenceText = z
  .string({ error: 'must be a string' })
  .max(EVIDENCE_MAX_CHARS, `must be at most ${EVIDENCE_MAX_CHARS} characters`)
  .optional()
  .default('');

/** A `1`/`0` flag, sent as text or as a JSON number. */
const flag = z
  .union([z.enum(['0', '1']), z.literal(0), z.literal(1)], { error: 'must be 1 (send the evidence) or 0 (save a draft)' })
  .optional()
  .transform((v) => String(v ?? '0') === '1');

const head = { merchant_id: merchantId, account_id: accountId, encryption_data: signature };

const COMPACT_DATE = /^\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:[01]\d|2[0-3])[0-5]\d[0-5]\d$/;
const compactDate = z
  .string({ error: 'must be a date written YYYYMMDDhhmmss' })
  .regex(COMPACT_DATE, 'must be a real date written YYYYMMDDhhmmss')
  .optional();

/** POST /v1/retrievalDispute (docs/disputes.md): lists and/or an opening-date range. */
export const retrievalDisputeSchema = z.object({
  ...head,
  transaction_id: nameList,
  order_no: nameList,
  dispute_id: nameList,
  start_date: compactDate,
  end_date: compactDate,
});

/** POST /v1/disputeEvidence (docs/disputes.md): the four evidence fields; submit 1 sends them, 0 keeps a draft. */
export const disputeEvidenceSchema = z.object({
  ...head,
  dispute_id: disputeId,
  product_description: evidenceText,
  customer_communication: evidenceText,
  shipping_tracking: evidenceText,
  uncategorized_text: evidenceText,
  submit: flag,
});

/** POST /v1/disputeAccept (docs/disputes.md). */
export const disputeAcceptSchema = z.object({ ...head, dispute_id: disputeId });
