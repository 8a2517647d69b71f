import request from 'supertest';
import type { Express } from 'express';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from './gateway.js';
import { sign } from './sign.js';

/** The signed fields of the dispute calls (docs/api.md#signatures), written from the contract. */
const SIGNED = {
  retrievalDispute: ['merchant_id', 'account_id'],
  disputeEvidence: ['merchant_id', 'account_id', 'dispute_id'],
  disputeAccept: ['merchant_id', 'account_id', 'dispute_id'],
} as const;

export type DisputeCall = keyof typeof SIGNED;

/** Posts a signed dispute call (a JSON text declared as a form, as merchants send them). */
export function disputeCall(app: Express, call: DisputeCall, fields: Record<string, unknown>, key = SIGN_KEY) {
  const body: Record<string, unknown> = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, ...fields };
  body.encryption_data = sign(
    SIGNED[call].map((f) => body[f]),
    key,
  );
  return request(app).post(`/v1/${call}`).set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));
}

/** The answer's own signature (merchant_id, account_id, return_status) checked by the documented rule. */
export function answerSigned(body: Record<string, unknown>, key = SIGN_KEY): boolean {
  return body.encryption_data === sign([body.merchant_id, body.account_id, body.return_status], key);
}
