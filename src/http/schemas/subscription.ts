import { z } from 'zod';
import { accountId, merchantId, optionalText, signature } from './common.js';
import { eitherOf } from './either-of.js';

/** POST /v1/cancelsubscription */
export const cancelSubscriptionSchema = z.object({
  merchant_id: merchantId,
  account_id: accountId,
  recurring_id: z.string({ error: 'is required' }).min(1, 'is required').max(64, 'must be at most 64 characters'),
  contract_name: optionalText(64),
  encryption_data: signature,
});

const notifyOrOrder = eitherOf(['notify_id'], ['order_no']);

/** POST /v1/notifications/resend: notify_id or order_no (at least one). */
export const resendSchema = notifyOrOrder.describe(
  z
    .object({
      merchant_id: merchantId,
      account_id: accountId,
      notify_id: optionalText(64),
      order_no: optionalText(64),
      encryption_data: signature,
    })
    .superRefine((b, ctx) => notifyOrOrder.check(b, ctx)),
);
