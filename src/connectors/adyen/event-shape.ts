import { z } from 'zod';

/**
 * The shape of an Adyen notification item, for the fields the gateway reads (adyen/events.ts): an item signed
 * with the account's key that does not have it is refused and logged rather than read half-way.
 */
const item = z.looseObject({
  eventCode: z.string().min(1),
  pspReference: z.string().min(1),
  merchantReference: z.string().optional(),
  originalReference: z.string().nullish(),
  success: z.union([z.literal('true'), z.literal('false'), z.boolean()]),
  reason: z.string().nullish(),
  amount: z.looseObject({ value: z.number().int().nonnegative(), currency: z.string().length(3) }).optional(),
  additionalData: z.record(z.string(), z.unknown()).nullish(),
});

/** What is wrong with an item's shape, naming the field; undefined when the gateway can read it. */
export function adyenItemProblem(raw: unknown): string | undefined {
  const parsed = item.safeParse(raw);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return `${issue.path.join('.') || '(the item)'}: ${issue.message}`;
}
