import { z } from 'zod';
import { isZeroDecimal } from '../../core/kernel/money.js';
import { accountId, currencyCode, merchantId, positiveAmountText, signature } from './common.js';

/** POST /v1/optimise (docs/api.md): the order whose payment methods are ranked. */
export const optimiseSchema = z
  .object({
    merchant_id: merchantId,
    account_id: accountId,
    request_id: z.string({ error: 'is required' }).min(1, 'is required').max(64, 'must be at most 64 characters'),
    currency: currencyCode,
    amount: positiveAmountText,
    billing_country: z
      .string({ error: 'is required' })
      .regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code such as "GB"')
      .transform((c) => c.toUpperCase()),
    shopper_email: z
      .union([z.literal(''), z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters')])
      .optional()
      .default(''),
    card_bin: z
      .union([z.literal(''), z.string().regex(/^\d{6,8}$/, 'must be the first 6 to 8 digits of the card')])
      .optional()
      .default(''),
    encryption_data: signature,
  })
  .superRefine((o, ctx) => {
    if (isZeroDecimal(o.currency) && !o.amount.endsWith('.00'))
      ctx.addIssue({ code: 'custom', path: ['amount'], message: `must end in .00: ${o.currency} has no minor unit` });
  });
