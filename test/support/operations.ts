import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import type { Express } from 'express';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, AUTO_SIGN_KEY, MERCHANT_ID, SIGN_KEY, authoriseBody } from './gateway.js';
import { FIELDS, sign, signBatch, signBody } from './sign.js';

const xml = new XMLParser({ parseTagValue: false });

export interface Paid {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  order_status: string;
}

/** Makes a payment through /v1/authorise and returns what the merchant learns of it. */
export async function pay(app: Express, overrides: Record<string, unknown> = {}, auto = false): Promise<Paid> {
  const body = authoriseBody(
    { items: undefined, item_total: undefined, ...(auto ? { account_id: AUTO_ACCOUNT_ID } : {}), ...overrides },
    auto ? AUTO_SIGN_KEY : SIGN_KEY,
  );
  const res = await request(app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));
  if (res.status !== 200) throw new Error(`authorise failed: ${res.status} ${res.text}`);
  const doc = xml.parse(res.text).respon;
  return {
    transaction_id: doc.transaction_id,
    order_no: doc.order_no,
    currency: doc.currency,
    amount: doc.amount,
    order_status: doc.order_status,
  };
}

export const ref = (p: Paid, extra: Record<string, unknown> = {}) => ({
  transaction_id: p.transaction_id,
  order_no: p.order_no,
  currency: p.currency,
  amount: p.amount,
  ...extra,
});

export type Call = 'capture' | 'review' | 'cancel' | 'refund';

/** A signed batch body (merchant_id, account_id, then each transaction_id) for the given orders. */
export function batchBody(call: Call, orders: Record<string, unknown>[], auto = false): Record<string, unknown> {
  const body = { merchant_id: MERCHANT_ID, account_id: auto ? AUTO_ACCOUNT_ID : ACCOUNT_ID, [`${call}_orders`]: orders };
  return signBatch(body, `${call}_orders`, auto ? AUTO_SIGN_KEY : SIGN_KEY);
}

/** Posts a batch call the way many integrations do (docs/api.md#bodies): a JSON text declared as a form. */
export function postBatch(app: Express, call: Call, orders: Record<string, unknown>[], auto = false) {
  return request(app)
    .post(`/v1/${call}`)
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(JSON.stringify(batchBody(call, orders, auto)));
}

/** Posts a query as real form fields, signed over merchant_id and account_id. */
export function postQuery(
  app: Express,
  path: '/v1/retrievalTrans' | '/v1/retrievalRefund',
  fields: Record<string, string>,
  accountId = ACCOUNT_ID,
  key = SIGN_KEY,
) {
  const body = signBody({ merchant_id: MERCHANT_ID, account_id: accountId, ...fields }, FIELDS.retrieval, key);
  return request(app).post(path).set('Content-Type', 'application/x-www-form-urlencoded').send(new URLSearchParams(body).toString());
}

/** The answer signature a merchant checks: merchant_id, account_id, return_status. */
export function batchSignature(body: Record<string, unknown>, key = SIGN_KEY): string {
  return sign(
    FIELDS.answerBatch.map((f) => body[f]),
    key,
  );
}
