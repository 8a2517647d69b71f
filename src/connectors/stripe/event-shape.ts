import { z } from 'zod';

/**
 * The shape of the Stripe events the gateway reads, for the fields it reads (stripe/events.ts): a signed event
 * that does not have it (a `data.object` of null, a dispute without `status`, a refund without `currency`) is
 * refused and logged rather than read half-way. Fields the gateway does not read may be anything.
 */
const metadata = z.record(z.string(), z.string()).nullish();
const amount = z.number().int().nonnegative();

const intent = z.looseObject({ id: z.string().min(1), metadata });

const refund = z.looseObject({
  id: z.string().min(1),
  status: z.string().nullish(),
  amount,
  currency: z.string().length(3),
  failure_reason: z.string().nullish(),
  metadata,
});

const dispute = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1),
  reason: z.string(),
  amount,
  payment_intent: z.union([z.string(), z.looseObject({ id: z.string() }), z.null()]).optional(),
  evidence_details: z.looseObject({ due_by: z.number().nullish() }).nullish(),
});

const event = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.number().optional(),
  data: z.looseObject({ object: z.looseObject({}) }),
});

/** The object schema of an event type the gateway reads; undefined for the types it only acknowledges. */
function objectSchema(type: string): z.ZodType | undefined {
  if (type.startsWith('payment_intent.')) return intent;
  if (type.startsWith('refund.') || type === 'charge.refund.updated') return refund;
  if (type.startsWith('charge.dispute.')) return dispute;
  return undefined;
}

/** What is wrong with a signed event's shape, naming the field; undefined when the gateway can read it. */
export function stripeEventProblem(raw: unknown): string | undefined {
  const base = event.safeParse(raw);
  if (!base.success) return describe(base.error);
  const schema = objectSchema(base.data.type);
  const object = schema?.safeParse(base.data.data.object);
  return object && !object.success ? describe(object.error, 'data.object.') : undefined;
}

function describe(error: z.ZodError, prefix = ''): string {
  const issue = error.issues[0]!;
  return `${prefix}${issue.path.join('.') || '(the event)'}: ${issue.message}`;
}
