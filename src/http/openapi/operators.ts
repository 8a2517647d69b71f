import { z } from 'zod';
import { createMerchantSchema, portalUserSchema, rotateSchema, updateMerchantSchema } from '../schemas/operators.js';
import { jsonSchemaOf } from './json-schema.js';
import { errorResponse, ERROR_TEXT, RETRY_AFTER, schemaRef, type Responses } from './responses.js';

type Json = Record<string, unknown>;

const date = z.string().meta({ description: 'ISO 8601 time (UTC)' });
const signKeyInfo = z.object({ key_id: z.string(), created_at: date, expires_at: date.nullable() });
/** An account as the operators read it: every setting of the merchants file, its keys by id only. */
const accountAnswer = z
  .object({ account_id: z.string(), sign_keys: z.array(signKeyInfo), sign_key: z.string().optional() })
  .loose()
  .meta({
    description: 'The account’s settings (as in the merchants file) and its sign keys by id; sign_key only in the answer that made it',
  });
const merchantAnswer = z.object({
  merchant_id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'suspended']),
  accounts: z.array(accountAnswer),
  portal_users: z.array(
    z.object({
      email: z.string(),
      role: z.enum(['admin', 'viewer']),
      state: z.enum(['active', 'invited']),
      invite_expires_at: date.optional(),
    }),
  ),
  created_at: date,
  updated_at: date,
});
const rotateAnswer = z.object({ key_id: z.string(), sign_key: z.string(), previous_expires_at: date });
const inviteAnswer = z.object({ email: z.string(), role: z.enum(['admin', 'viewer']), invite_url: z.string(), invite_expires_at: date });
const auditAnswer = z.object({
  audit: z.array(
    z.object({
      id: z.string(),
      at: date,
      operator_key_id: z.string(),
      merchant_id: z.string(),
      action: z.string(),
      changes: z.record(z.string(), z.unknown()),
    }),
  ),
});
const accountRequest = z
  .object({ account_id: z.string().max(10) })
  .loose()
  .meta({ description: 'Any account setting of the merchants file but sign_key (docs/operators.md)' });
const accountPatch = z.object({}).loose().meta({ description: 'Any account setting of the merchants file but account_id and sign_key' });

/** The operators' schemas, named in components.schemas. */
export const OPERATOR_SCHEMAS: Record<string, z.ZodType> = {
  OperatorMerchant: merchantAnswer,
  OperatorAccount: accountAnswer,
  OperatorSignKey: rotateAnswer,
  OperatorInvitation: inviteAnswer,
  OperatorAudit: auditAnswer,
  OperatorCreateMerchant: createMerchantSchema,
  OperatorUpdateMerchant: updateMerchantSchema,
  OperatorAccountRequest: accountRequest,
  OperatorAccountPatch: accountPatch,
  OperatorRotate: rotateSchema,
  OperatorPortalUser: portalUserSchema,
};

const ok = (status: number, description: string, schema: string): Responses => ({
  [status]: { description, content: { 'application/json': { schema: schemaRef(schema) } } },
});

function errors(statuses: number[]): Responses {
  const out: Responses = {};
  // 404 also while OPERATOR_KEYS is unset: /admin is then not served at all
  for (const s of [...new Set([400, 401, 404, 413, 415, 429, 503, ...statuses])].sort()) {
    const r = errorResponse(s, ERROR_TEXT[s] ?? 'Refused');
    // a client that failed to authenticate too often is refused for a while (docs/security.md)
    out[s] = s === 429 ? { ...r, headers: { 'Retry-After': RETRY_AFTER } } : r;
  }
  return out;
}

const path = (name: string, description: string): Json => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const MERCHANT = path('merchant_id', 'The merchant');
const ACCOUNT = path('account_id', 'One of its accounts');

function op(operationId: string, summary: string, description: string, responses: Responses, extra: Json = {}): Json {
  return { operationId, tags: ['Operators'], summary, description, security: [{ operatorKey: [] }], responses, ...extra };
}

const requestBody = (schema: string): Json => ({ required: true, content: { 'application/json': { schema: schemaRef(schema) } } });

/** The operators' API under /admin/v1 (served only with OPERATOR_KEYS), as OpenAPI paths. */
export function operatorPaths(): Record<string, Json> {
  return {
    '/admin/v1/merchants': {
      post: op(
        'operatorCreateMerchant',
        'Create a merchant',
        'Each account gets a new sign key (43 characters), shown in this answer only. 409 when the merchant exists.',
        { ...ok(201, 'Created', 'OperatorMerchant'), ...errors([409]) },
        { requestBody: requestBody('OperatorCreateMerchant') },
      ),
    },
    '/admin/v1/merchants/{merchant_id}': {
      get: op(
        'operatorGetMerchant',
        'Read a merchant',
        'Sign keys by id and dates only, never a key.',
        {
          ...ok(200, 'The merchant', 'OperatorMerchant'),
          ...errors([404]),
        },
        { parameters: [MERCHANT] },
      ),
      patch: op(
        'operatorUpdateMerchant',
        'Rename, suspend or reactivate a merchant',
        'A suspended merchant’s new payments, payouts and checkouts are 403 MERCHANT_SUSPENDED; what is already moving goes on.',
        { ...ok(200, 'The merchant', 'OperatorMerchant'), ...errors([404, 409]) },
        { parameters: [MERCHANT], requestBody: requestBody('OperatorUpdateMerchant') },
      ),
    },
    '/admin/v1/merchants/{merchant_id}/accounts': {
      post: op(
        'operatorCreateAccount',
        'Add an account',
        'Its sign key is made and shown in this answer only.',
        { ...ok(201, 'Created', 'OperatorAccount'), ...errors([404, 409]) },
        { parameters: [MERCHANT], requestBody: requestBody('OperatorAccountRequest') },
      ),
    },
    '/admin/v1/merchants/{merchant_id}/accounts/{account_id}': {
      patch: op(
        'operatorUpdateAccount',
        'Change an account',
        'Any setting but its id and keys; the whole account is checked again.',
        { ...ok(200, 'The account', 'OperatorAccount'), ...errors([404, 409]) },
        { parameters: [MERCHANT, ACCOUNT], requestBody: requestBody('OperatorAccountPatch') },
      ),
    },
    '/admin/v1/merchants/{merchant_id}/accounts/{account_id}/sign-keys': {
      post: op(
        'operatorRotateSignKey',
        'Rotate the sign key',
        'The new key signs from now on; the previous one verifies until previous_expires_at (default 1 day, at most 7, 0: at once).',
        { ...ok(201, 'The new key, shown once', 'OperatorSignKey'), ...errors([404, 409]) },
        { parameters: [MERCHANT, ACCOUNT], requestBody: requestBody('OperatorRotate') },
      ),
    },
    '/admin/v1/merchants/{merchant_id}/portal-users': {
      post: op(
        'operatorInvitePortalUser',
        'Invite a portal user',
        'A one-time link that sets the password, valid 24 hours, shown in this answer only.',
        { ...ok(201, 'Invited', 'OperatorInvitation'), ...errors([404, 409]) },
        { parameters: [MERCHANT], requestBody: requestBody('OperatorPortalUser') },
      ),
    },
    '/admin/v1/merchants/{merchant_id}/portal-users/{email}': {
      delete: op(
        'operatorRemovePortalUser',
        'Remove a portal user',
        'Their sessions end at once.',
        { 204: { description: 'Removed' }, ...errors([404, 409]) },
        { parameters: [MERCHANT, path('email', 'The user’s e-mail')] },
      ),
    },
    '/admin/v1/audit': {
      get: op(
        'operatorAudit',
        'The operators’ audit',
        'Every change, newest first: when, which operator key id, what changed (never a secret).',
        { ...ok(200, 'The changes', 'OperatorAudit'), ...errors([]) },
        {
          parameters: [
            { name: 'merchant_id', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
          ],
        },
      ),
    },
  };
}

/** The operators' schemas as JSON Schema. */
export function operatorSchemas(): Record<string, Json> {
  return Object.fromEntries(Object.entries(OPERATOR_SCHEMAS).map(([name, schema]) => [name, jsonSchemaOf(schema)]));
}
