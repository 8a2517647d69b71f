import { z } from 'zod';
import { accountId, merchantId, signature } from './common.js';

/** A list of names: a JSON array of strings, or a comma-separated text (form fields), or a JSON array in a text. */
export const nameList = z
  .union([z.string().max(20_000), z.array(z.string().max(255)).max(100)], {
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

/** What a real date written YYYYMMDDhhmmss looks like; the route reads it in the account's zone (routes/retrieval.ts). */
const COMPACT_DATE = /^\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:[01]\d|2[0-3])[0-5]\d[0-5]\d$/;
const compactDate = z
  .string({ error: 'must be a date written YYYYMMDDhhmmss' })
  .regex(/^\d{14}$/, 'must be a date written YYYYMMDDhhmmss')
  .regex(COMPACT_DATE, 'is not a real date (YYYYMMDDhhmmss)')
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
