import { z } from 'zod';
import { luhnValid } from '../../core/kernel/cards.js';

/** The hosted card page's form. Every field's problem is reported next to that field. */
export const cardFormSchema = z.object({
  cardholder: z.string().trim().min(1, 'Enter the name on the card').max(64, 'The name is too long'),
  card: z
    .string()
    .transform((v) => v.replace(/[\s-]/g, ''))
    .pipe(
      z
        .string()
        .regex(/^\d{12,19}$/, 'Enter the 12 to 19 digits of the card number')
        .refine(luhnValid, 'This card number is not valid'),
    ),
  expiration_month: z.string().regex(/^(0?[1-9]|1[0-2])$/, 'Enter the month, 01 to 12'),
  expiration_year: z.string().regex(/^(\d{2}|\d{4})$/, 'Enter the year, such as 2030'),
  security_code: z.string().regex(/^\d{3,4}$/, 'Enter the 3 or 4 digit security code'),
});
export type CardForm = z.output<typeof cardFormSchema>;

export type CardFormErrors = Partial<Record<keyof CardForm, string>>;

/** The checked form, or one message per field at fault. */
export function readCardForm(body: Record<string, unknown>): { ok: true; form: CardForm } | { ok: false; errors: CardFormErrors } {
  const input = Object.fromEntries(Object.keys(cardFormSchema.shape).map((k) => [k, typeof body[k] === 'string' ? body[k] : '']));
  const parsed = cardFormSchema.safeParse(input);
  if (parsed.success) return { ok: true, form: parsed.data };
  const errors: CardFormErrors = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0] as keyof CardForm;
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}
