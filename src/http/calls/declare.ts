import type { z } from 'zod';
import { REQUEST_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import type { Responses } from '../openapi/responses.js';

/**
 * One merchant call, declared once: its path, the zod schema its route checks, the values its request signature
 * covers, its answer and the shape of its error bodies, and the OpenAPI text. Authentication, the body limits, the
 * error handler, the POST dispatch and the OpenAPI document read these declarations; a route takes its path from
 * here, so a call's path is written in one place (docs/architecture.md "Adding a call").
 */
export interface CallSpec<S extends z.ZodType = z.ZodType> {
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  request: S;
  /** values signed, in order, then sign_key; `transaction_id…` stands for every transaction_id of the array */
  requestSignature: readonly string[];
  /** a batch call's array of orders: the signature covers merchant_id, account_id and each order's transaction_id */
  batchArray?: string;
  answer: z.ZodType;
  answerSignature: readonly string[];
  /** the answer's media type */
  answerType: 'application/json' | 'application/xml' | 'text/html';
  /**
   * The error body (docs/api.md#bodies): `code` is `{code, message, field?, request_id}`; `return_status` adds
   * `return_status` "0", as the call's own answers carry it; `respon` is a refusal document unless JSON is preferred.
   */
  errorBody: 'code' | 'return_status' | 'respon';
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

/** A batch call's signature: merchant_id, account_id, then each order's transaction_id of `array`. */
export const batch = (array: string) => ({
  requestSignature: [...REQUEST_SIGNATURE_FIELDS.batch, `${array}[].transaction_id…`],
  batchArray: array,
});

/** A call's declaration, keeping its schema's type so the route's parse is typed by it. */
export function declareCall<S extends z.ZodType>(spec: CallSpec<S>): CallSpec<S> {
  return spec;
}
