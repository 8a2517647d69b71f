import type { Request } from 'express';
import type { GatewayError } from '../../core/kernel/errors.js';
import type { Account } from '../../core/records/directory.js';
import { formatAmount, parseAmount } from '../../core/kernel/money.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../../core/kernel/signing.js';
import type { PaymentAnswer } from '../../core/payments/answer.js';
import { xmlDocument } from './xml.js';
import { callAt } from '../calls/index.js';

/**
 * docs/api.md#bodies: a call whose error body is `respon` (/v1/authorise) answers a refusal as a `respon` document too, so a client that reads only XML can
 * read why it was refused. A caller whose Accept header prefers JSON gets the JSON error body instead.
 */
export function wantsXmlRefusal(req: Request): boolean {
  return (
    req.method === 'POST' &&
    callAt(req.path)?.errorBody === 'respon' &&
    req.accepts(['application/xml', 'application/json']) !== 'application/json'
  );
}

/** A request identifier as the refusal echoes it: text of a sensible length, else nothing. */
function identifier(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  return typeof v === 'string' && v.length <= 64 ? v : '';
}

/**
 * The refusal: every element of the `respon` document (docs/api.md), `order_status` 0, `result_info`
 * `<code>:<message naming the field>`, the request's identifiers (the amount normalised when it could be
 * read) and the request id. Signed like any payment answer when the caller was authenticated, else empty.
 */
export function refusalDocument(req: Request, error: GatewayError, requestId: string, account: Account | undefined): string {
  const body: Record<string, unknown> = req.body !== null && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? req.body : {};
  const sentAmount = identifier(body, 'amount');
  const amount = parseAmount(sentAmount);
  const answer: Omit<PaymentAnswer, 'encryption_data' | 'issuer_url'> & { request_id: string } = {
    merchant_id: identifier(body, 'merchant_id'),
    account_id: identifier(body, 'account_id'),
    order_no: identifier(body, 'order_no'),
    amount: amount === undefined ? sentAmount : formatAmount(amount),
    currency: identifier(body, 'currency'),
    transaction_id: '',
    card: '',
    order_status: '0',
    result_info: `${error.code}:${error.message}`,
    contract_name: '',
    recurring_id: '',
    recurring_deduction_period: '',
    recurring_deduction_time: '',
    note: '',
    token_id: '',
    connector: '',
    threeds_result: '',
    risk_action: '',
    risk_score: '',
    risk_reasons: [],
    request_id: requestId,
  };
  const signature = account ? signFields(answer, RESPONSE_SIGNATURE_FIELDS.payment, account.sign_key).toUpperCase() : '';
  return xmlDocument('respon', { ...answer, encryption_data: signature });
}
