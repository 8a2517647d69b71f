import { createHash } from 'node:crypto';

/**
 * The test's own implementation of the signature rule (docs/api.md#signatures), written from the documentation,
 * not imported from src, so known-answer tests check the product against the contract.
 */
export function sign(values: unknown[], key: string): string {
  const text = values
    .map((v) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)).split(' ').join(''))
    .join('');
  return createHash('sha256')
    .update(text + key, 'utf8')
    .digest('hex');
}

export const FIELDS = {
  authorise: [
    'merchant_id',
    'account_id',
    'order_no',
    'currency',
    'amount',
    'first_name',
    'last_name',
    'card',
    'expiration_year',
    'expiration_month',
    'security_code',
    'shopper_email',
  ],
  checkout: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'first_name', 'last_name', 'shopper_email'],
  retrieval: ['merchant_id', 'account_id'],
  cancelsubscription: ['merchant_id', 'account_id', 'recurring_id'],
  payout: ['merchant_id', 'account_id', 'request_id', 'payment_currency', 'payment_amount'],
  payoutQuery: ['merchant_id', 'account_id', 'request_id', 'transaction_id'],
  answerPayout: ['merchant_id', 'account_id', 'request_id', 'status'],
  notificationPayout: ['merchant_id', 'account_id', 'notify_type', 'notify_id', 'request_id'],
  answerPayment: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'order_status'],
  answerBatch: ['merchant_id', 'account_id', 'return_status'],
  notification: ['merchant_id', 'account_id', 'notify_type', 'notify_id', 'order_no'],
} as const;

/** Signs a request body with the named fields and returns it with encryption_data set. */
export function signBody<T extends Record<string, unknown>>(
  body: T,
  fields: readonly string[],
  key: string,
): T & { encryption_data: string } {
  return {
    ...body,
    encryption_data: sign(
      fields.map((f) => body[f]),
      key,
    ),
  };
}

/** Signs a batch body: merchant_id, account_id, then every transaction_id of the array in order. */
export function signBatch<T extends Record<string, unknown>>(body: T, arrayField: string, key: string): T & { encryption_data: string } {
  const orders = (body[arrayField] as { transaction_id?: string }[] | undefined) ?? [];
  return { ...body, encryption_data: sign([body.merchant_id, body.account_id, ...orders.map((o) => o.transaction_id)], key) };
}
