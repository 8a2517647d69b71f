import { z } from 'zod';
import { parseAmount } from '../../core/kernel/money.js';
import { parseCompactDate } from '../../core/kernel/dates.js';
import { PaymentStatus } from '../../core/records/payment.js';

/** "10", "10.5" and "10.50" all mean 10.50; anything else (signs, exponents, three decimals) is refused. */
export function readPortalAmount(text: string): number | undefined {
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text.trim());
  return m ? parseAmount(`${m[1]}.${(m[2] ?? '').padEnd(2, '0')}`) : undefined;
}

const portalAmount = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .refine((v) => readPortalAmount(v) !== undefined, 'must be an amount such as 10.00')
  .transform((v) => readPortalAmount(v)!)
  .refine((v) => v > 0, 'must be more than zero');

const optionalAmount = z
  .string()
  .trim()
  .optional()
  .refine((v) => !v || readPortalAmount(v) !== undefined, 'must be an amount such as 10.00')
  .transform((v) => (v ? readPortalAmount(v) : undefined));

const day = z
  .string()
  .trim()
  .optional()
  .refine((v) => !v || /^\d{4}-\d{2}-\d{2}$/.test(v), 'must be a date such as 2026-01-31');

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((v) => v || undefined);

export const loginForm = z.object({
  email: z.string({ error: 'is required' }).trim().min(1, 'is required').max(254, 'must be at most 254 characters'),
  password: z.string({ error: 'is required' }).min(1, 'is required').max(200, 'must be at most 200 characters'),
});

export const captureForm = z.object({ amount: portalAmount });
export const refundForm = z.object({
  refund_amount: portalAmount,
  refund_reason: z.string().trim().max(255, 'must be at most 255 characters').optional().default(''),
});
export const resendForm = z.object({ notify_id: z.string().min(1, 'is required').max(64) });
export const passwordForm = z.object({
  current_password: z.string({ error: 'is required' }).min(1, 'is required').max(200),
  new_password: z.string({ error: 'is required' }).min(1, 'is required').max(200, 'must be at most 200 characters'),
});

const STATUSES = Object.values(PaymentStatus) as [string, ...string[]];

/** The payments list's query string: every filter optional; the cursor is `<time>.<transaction_id>`. */
export const paymentSearchQuery = z.object({
  order_no: optionalText(64),
  transaction_id: optionalText(64),
  status: z
    .union([z.enum(STATUSES), z.literal('')], { error: 'must be one of the payment_status codes' })
    .optional()
    .transform((v) => v || undefined),
  from: day,
  to: day,
  min_amount: optionalAmount,
  max_amount: optionalAmount,
  last4: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || /^\d{4}$/.test(v), 'must be four digits')
    .transform((v) => v || undefined),
  account: optionalText(10),
  currency: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || /^[A-Za-z]{3}$/.test(v), 'must be a three-letter currency code')
    .transform((v) => v?.toUpperCase() || undefined),
  after: z
    .string()
    .optional()
    .refine((v) => !v || /^\d{1,16}\.[\w-]{1,64}$/.test(v), 'is not a page cursor')
    .transform((v) => (v ? { at: Number(v.slice(0, v.indexOf('.'))), txn: v.slice(v.indexOf('.') + 1) } : undefined)),
});
export type PaymentSearchQuery = z.output<typeof paymentSearchQuery>;

/** Start (00:00:00.000) or end (23:59:59.999) of a `YYYY-MM-DD` day in the gateway's time zone. */
export function dayBound(dayText: string | undefined, end: boolean, timezone: string): number | undefined {
  if (!dayText) return undefined;
  const ms = parseCompactDate(`${dayText.replace(/-/g, '')}${end ? '235959' : '000000'}`, timezone);
  return ms === undefined ? undefined : ms + (end ? 999 : 0);
}

/** The first issue of a form as field -> message (the page shows it next to the field and in the summary). */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.map(String).join('.') || 'form';
    if (!(field in out)) out[field] = issue.message;
  }
  return out;
}
