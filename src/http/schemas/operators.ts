import { z } from 'zod';
import { GatewayError } from '../../core/kernel/errors.js';
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from '../../core/merchants/operators.js';

/** Ids an operator gives: letters, digits, - and _ (they name store keys), at the merchants file's lengths. */
export const MERCHANT_PARAM = /^[A-Za-z0-9_-]{1,7}$/;
export const ACCOUNT_PARAM = /^[A-Za-z0-9_-]{1,10}$/;

const merchantId = z.string().regex(MERCHANT_PARAM, 'must be 1 to 7 letters, digits, - or _');
const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** An account's settings as in the merchants file, its sign_key left out (the gateway makes it); checked whole in core. */
export const accountInputSchema = z.record(z.string(), z.unknown());

export const createMerchantSchema = z.strictObject({
  merchant_id: merchantId,
  name,
  accounts: z.array(z.record(z.string(), z.unknown())).min(1, 'must list at least one account').max(100, 'must list at most 100 accounts'),
});

export const updateMerchantSchema = z
  .strictObject({ name: name.optional(), status: z.enum(['active', 'suspended']).optional() })
  .refine((v) => v.name !== undefined || v.status !== undefined, { message: 'must change name or status', path: ['body'] });

export const rotateSchema = z.strictObject({
  previous_expires_in_seconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(0, 'must be at least 0 (0: the previous key stops at once)')
    .max(MAX_OVERLAP_SECONDS, `must be at most ${MAX_OVERLAP_SECONDS} (7 days)`)
    .default(DEFAULT_OVERLAP_SECONDS),
});

export const portalUserSchema = z.strictObject({
  email: z.email('must be an e-mail address').max(254, 'must be at most 254 characters'),
  role: z.enum(['admin', 'viewer']),
});

export const auditQuerySchema = z.strictObject({
  merchant_id: merchantId.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** Checks an operator's body or query: the first problem is a 400 naming its field. */
export function parseAdmin<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw new GatewayError('INVALID_BODY', 'body: must be a JSON object', 'body');
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') path.push(issue.keys[0]!);
  const field = path.join('.') || 'body';
  const missing =
    issue.code === 'invalid_type' && path.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], input) === undefined;
  const message = issue.code === 'unrecognized_keys' ? 'is not a field of this call' : missing ? 'is required' : issue.message;
  throw new GatewayError(missing ? 'MISSING_FIELD' : 'INVALID_FIELD', `${field}: ${message}`, field);
}
