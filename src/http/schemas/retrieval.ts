import { z } from 'zod';
import { accountId, merchantId, signature } from './common.js';

/** A list of names: a JSON array of strings, or a comma-separated text (form fields), or a JSON array in a text. */
export const nameList = z
  .union([z.string().max(20_000), z.array(z.string().max(255)).max(1000)], {
    error: 'must be a comma-separated list or an array of strings',
  })
  .optional()
  .transform((v, ctx): string[] => {
    if (v === undefined) return [];
    let items: unknown = v;
    if (typeof v === 'string') {
      const t = v.trim();
      if (t.startsWith('[')) {
        try {
          items = JSON.parse(t);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'is not a valid JSON array' });
          return z.NEVER;
        }
      } else items = t.split(',');
    }
    if (!Array.isArray(items) || items.some((s) => typeof s !== 'string' || s.length > 255)) {
      ctx.addIssue({ code: 'custom', message: 'must be a list of texts of at most 255 characters' });
      return z.NEVER;
    }
    return [...new Set((items as string[]).map((s) => s.trim()).filter((s) => s !== ''))];
  });

const compactDate = z
  .string({ error: 'must be a date written YYYYMMDDhhmmss' })
  .regex(/^\d{14}$/, 'must be a date written YYYYMMDDhhmmss')
  .optional();

const head = { merchant_id: merchantId, account_id: accountId, encryption_data: signature };

/** start_date/end_date bound only a query that names no order (the account's newest payments). */
export const retrievalTransSchema = z.object({
  ...head,
  order_no: nameList,
  transaction_id: nameList,
  start_date: compactDate,
  end_date: compactDate,
});

export const retrievalRefundSchema = z.object({
  ...head,
  transaction_id: nameList,
  order_no: nameList,
  refund_reference_id: nameList,
  start_date: compactDate,
  end_date: compactDate,
});
