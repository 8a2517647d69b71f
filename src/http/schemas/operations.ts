import { z } from 'zod';
import { BATCH_CALLS } from '../../core/operations/batch.js';
import { fitsCurrency, parseAmount, wholeUnitsMessage } from '../../core/kernel/money.js';
import { accountId, amountText, currencyCode, merchantId, optionalText, signature, text } from './common.js';

const required = (max: number) => text(max).min(1, 'is required');

/** The fields every batch order carries (spec: capture, review, cancel and refund requests). */
const orderRef = {
  transaction_id: required(64),
  order_no: required(64),
  currency: currencyCode,
  amount: amountText,
};

/** In a zero-decimal currency (JPY, KRW, ...) an order's amounts must be whole units, as payments' are. */
function wholeUnits(o: { currency: string; amount: string; refund_amount?: string }, ctx: z.RefinementCtx): void {
  for (const f of ['amount', 'refund_amount'] as const) {
    const v = o[f];
    if (v !== undefined && !fitsCurrency(parseAmount(v)!, o.currency))
      ctx.addIssue({ code: 'custom', path: [f], message: wholeUnitsMessage(o.currency) });
  }
}

const orders = <T extends z.ZodObject>(call: keyof typeof BATCH_CALLS, order: T) =>
  z
    .array(
      order.superRefine((o, ctx) => wholeUnits(o as unknown as { currency: string; amount: string; refund_amount?: string }, ctx)),
      {
        error: 'must be an array of orders',
      },
    )
    .min(1, 'must list at least one order')
    .max(BATCH_CALLS[call].max, `must list at most ${BATCH_CALLS[call].max} orders`);

const head = { merchant_id: merchantId, account_id: accountId, encryption_data: signature };

export const captureSchema = z.object({ ...head, capture_orders: orders('capture', z.object(orderRef)) });
export const cancelSchema = z.object({ ...head, cancel_orders: orders('cancel', z.object(orderRef)) });
export const reviewSchema = z.object({
  ...head,
  review_orders: orders(
    'review',
    z.object({ ...orderRef, review_flag: z.enum(['0', '1'], { error: 'must be "1" (approve) or "0" (reject)' }) }),
  ),
});
export const refundSchema = z.object({
  ...head,
  refund_orders: orders('refund', z.object({ ...orderRef, refund_amount: amountText, refund_reason: optionalText(255) })),
});
