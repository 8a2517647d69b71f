import { z } from 'zod';
import { ERROR_CODES } from '../../core/kernel/errors.js';
import { CALLS, type CallSpec } from './calls.js';
import { PAGES } from './pages.js';
import { errorSchema } from './answers.js';

type Json = Record<string, unknown>;

const AMOUNT_FIELDS = new Set([
  'amount',
  'refund_amount',
  'contract_amount',
  'item_total',
  'shipping',
  'handling',
  'tax_total',
  'insurance',
  'shipping_discount',
  'discount',
  'payment_amount',
  'source_amount',
]);

/**
 * zod's JSON Schema of a request keeps types, lengths, patterns and enums; the checks written as code
 * (amount shape, ISO 4217 code) become descriptions here, so the document says what the route refuses.
 */
function annotate(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(annotate);
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  const props = obj.properties as Record<string, Json> | undefined;
  if (props) {
    for (const [name, p] of Object.entries(props)) {
      if (AMOUNT_FIELDS.has(name) && p.type === 'string' && !p.description)
        p.description = 'decimal string with two fraction digits, e.g. "10.00" (whole units only in zero-decimal currencies)';
      if (/currency$/.test(name) && p.type === 'string' && !p.pattern && !p.description)
        p.description = 'ISO 4217 currency code, e.g. "USD"';
    }
  }
  for (const v of Object.values(obj)) annotate(v);
}

/** The JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a zod schema, as requests are read (io: input). */
export function jsonSchemaOf(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
  delete out.$schema;
  annotate(out);
  return out;
}

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

function signatureText(fields: readonly string[]): string {
  return `SHA-256 (lower-case hex) of the values of ${fields.join(', ')}, each with spaces removed, concatenated, then sign_key`;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request: unreadable body, missing or malformed field (message and field name it)',
  401: 'Wrong signature, or unknown merchant or account (one message for both)',
  403: 'Caller IP not in the account’s allowed_ips',
  404: 'Nothing found under that identifier',
  409: 'order_no / request_id used with other content, or Idempotency-Key conflict',
  413: 'Body over 1 MB',
  422: 'Not enough deposit balance',
  429: 'Over the account’s rate limit (Retry-After says when to try again)',
  503: 'The store is not answering; try again',
};

function operationOf(call: CallSpec): Json {
  const requestRef = { $ref: `#/components/schemas/${pascal(call.operationId)}Request` };
  const answerRef = { $ref: `#/components/schemas/${pascal(call.operationId)}Answer` };
  const errors = [...new Set([400, 401, 413, 429, 503, ...(call.moreErrors ?? [])])].sort();
  const responses: Json = {
    200: {
      description: call.answerType === 'application/xml' ? 'The respon XML document' : 'Processed',
      content:
        call.operationId === 'checkout'
          ? { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: answerRef } }
          : { [call.answerType]: { schema: answerRef } },
    },
  };
  for (const status of errors)
    responses[status] = {
      description: ERROR_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  return {
    operationId: call.operationId,
    tags: [call.tag],
    summary: call.summary,
    description:
      `${call.description}\n\n**Request signature** (encryption_data): ${signatureText(call.requestSignature)}. ` +
      'A signature over the values exactly as sent (spaces kept) is accepted too.' +
      (call.answerSignature.length ? `\n\n**Answer signature**: ${signatureText(call.answerSignature)}.` : ''),
    'x-request-signature': call.requestSignature,
    'x-answer-signature': call.answerSignature,
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Optional: the same key with the same body answers the first answer again',
        schema: { type: 'string', maxLength: 255 },
      },
    ],
    requestBody: {
      required: true,
      description:
        'A JSON text, whatever the declared content type (application/json, application/x-www-form-urlencoded or application/xml, ' +
        'as existing integrations send it); real form fields are read too.',
      content: {
        'application/json': { schema: requestRef },
        'application/x-www-form-urlencoded': { schema: requestRef },
      },
    },
    responses,
  };
}

/** The OpenAPI 3.1 document of the gateway: every /v1 call from the zod schemas its route checks, and the pages. */
export function openApiDocument(baseUrl: string, version: string): Json {
  const paths: Record<string, Json> = {};
  const schemas: Record<string, Json> = { Error: jsonSchemaOf(errorSchema) };
  for (const call of CALLS) {
    paths[call.path] = { post: operationOf(call) };
    schemas[`${pascal(call.operationId)}Request`] = jsonSchemaOf(call.request);
    schemas[`${pascal(call.operationId)}Answer`] = jsonSchemaOf(call.answer);
  }
  for (const page of PAGES) {
    const path = page.path.replace(/:(\w+)/g, '{$1}');
    const params = [...page.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    paths[path] = {
      ...paths[path],
      [page.method]: {
        operationId: page.operationId,
        tags: [page.tag],
        summary: page.summary,
        ...(params.length ? { parameters: params } : {}),
        responses: { [page.status ?? 200]: { description: page.answer, content: { [page.type]: { schema: { type: 'string' } } } } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment gateway API',
      version,
      description:
        'Every request carries merchant_id, account_id and encryption_data, a signature over the call’s fields (see each call). ' +
        'Answers and notifications are signed by the gateway with the same rule. Notifications are form posts to notify_url with ' +
        'X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed by sign_key>. Error codes: ' +
        Object.keys(ERROR_CODES).join(', ') +
        '.',
      license: { name: 'Open source' },
    },
    servers: [{ url: baseUrl }],
    tags: [...new Set([...CALLS.map((c) => c.tag), ...PAGES.map((p) => p.tag)])].map((name) => ({ name })),
    paths,
    components: { schemas },
  };
}
