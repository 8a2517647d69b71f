import { z } from 'zod';
import { ERROR_CODES } from '../../core/kernel/errors.js';
import { bodyLimitFor } from '../middleware/body.js';
import { IDEMPOTENCY_KEY } from '../middleware/idempotency.js';
import { SESSION_COOKIE } from '../middleware/portal.js';
import { CALL_ERRORS, CALLS, type CallSpec } from '../calls/index.js';
import { PAGES, type PageSpec } from './pages.js';
import * as answers from './answers.js';
import {
  ERROR_STATUSES,
  ERROR_TEXT,
  errorResponse,
  errorSchemaOf,
  merged,
  page,
  RETRY_AFTER,
  schemaRef,
  type Responses,
} from './responses.js';
import { formEncoding, jsonSchemaOf } from './json-schema.js';
import { operatorPaths, operatorSchemas } from './operators.js';

type Json = Record<string, unknown>;

export { jsonSchemaOf } from './json-schema.js';

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);
const kb = (bytes: number) => `${bytes / 1024} KB`;

function signatureText(fields: readonly string[]): string {
  return `SHA-256 (lower-case hex) of the values of ${fields.join(', ')}, each with spaces removed, concatenated, then sign_key`;
}

/** The answers of a signed call: its own, its errors (JSON; /v1/authorise's also as respon documents), any others. */
function callResponses(call: CallSpec): Responses {
  const answer = schemaRef(`${pascal(call.operationId)}Answer`);
  const ok =
    call.operationId === 'checkout'
      ? { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: answer } }
      : { [call.answerType]: { schema: answer } };
  const responses: Responses = {
    200: { description: call.answerType === 'application/xml' ? 'The respon XML document' : 'Processed', content: ok },
  };
  // docs/api.md#bodies: /v1/authorise answers its refusals as respon documents unless Accept prefers JSON
  const refusal: Record<string, { schema: Json }> =
    call.operationId === 'authorise' ? { 'application/xml': { schema: schemaRef('AuthoriseRefusal') } } : {};
  for (const status of [...new Set([...CALL_ERRORS, ...(call.moreErrors ?? [])])].sort()) {
    const text = status === 413 ? `Body over ${kb(bodyLimitFor(call.path))}, this call’s limit` : ERROR_TEXT[status]!;
    const r = errorResponse(status, text, refusal);
    responses[status] = status === 429 ? { ...r, headers: { 'Retry-After': RETRY_AFTER } } : r;
  }
  for (const [status, r] of Object.entries(call.moreResponses ?? {})) responses[Number(status)] = merged(responses[Number(status)], r);
  return responses;
}

function operationOf(call: CallSpec, request: Json): Json {
  const requestRef = schemaRef(`${pascal(call.operationId)}Request`);
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
    // the request is signed in its body (encryption_data), which no OpenAPI security scheme can describe
    security: [],
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Optional: the same key with the same body answers the first answer again (24 hours); another body is 409',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
      },
    ],
    requestBody: {
      required: true,
      description:
        'As the interface’s examples in docs/api.md send it, a JSON text under either content type (or application/xml): under ' +
        'application/x-www-form-urlencoded too the body is read as JSON when it starts with `{`, nested objects and arrays ' +
        'included (the encoding marks them application/json). A body that does not start with `{` is read as real form fields, ' +
        'which carry flat fields only (the retrieval calls also take a list as a JSON array in a text).',
      content: {
        'application/json': { schema: requestRef },
        'application/x-www-form-urlencoded': { schema: requestRef, ...formEncoding(request) },
      },
    },
    responses: callResponses(call),
  };
}

function pageOperation(page: PageSpec): Json {
  const params = [...page.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  return {
    operationId: page.operationId,
    tags: [page.tag],
    summary: page.summary,
    description: page.description,
    security: page.security ? [{ [page.security]: [] }] : [],
    ...(params.length || page.parameters ? { parameters: [...params, ...(page.parameters ?? [])] } : {}),
    responses: page.responses,
  };
}

/** The schemas of the answers that are not a call's: errors, the respon refusal, the operating endpoints. */
function sharedSchemas(): Record<string, Json> {
  const schemas: Record<string, Json> = {
    AuthoriseRefusal: jsonSchemaOf(answers.refusalAnswerSchema),
    Health: jsonSchemaOf(answers.healthAnswerSchema),
    Ready: jsonSchemaOf(answers.readyAnswerSchema),
    NotReady: jsonSchemaOf(answers.notReadyAnswerSchema),
    ScriptInventory: jsonSchemaOf(answers.scriptInventorySchema),
    OpenApiDocument: jsonSchemaOf(answers.openApiAnswerSchema),
  };
  for (const status of ERROR_STATUSES) schemas[`Error${status}`] = jsonSchemaOf(errorSchemaOf(status) as z.ZodType);
  return schemas;
}

/** The OpenAPI 3.1 document of the gateway: every /v1 call from the zod schemas its route checks, and the pages. */
export function openApiDocument(baseUrl: string, version: string): Json {
  const paths: Record<string, Json> = {};
  const schemas: Record<string, Json> = sharedSchemas();
  for (const call of CALLS) {
    const request = jsonSchemaOf(call.request, true);
    schemas[`${pascal(call.operationId)}Request`] = request;
    schemas[`${pascal(call.operationId)}Answer`] = jsonSchemaOf(call.answer);
    paths[call.path] = { post: operationOf(call, request) };
  }
  for (const p of PAGES) {
    const path = p.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [p.method]: pageOperation(p) };
  }
  Object.assign(paths, operatorPaths());
  Object.assign(schemas, operatorSchemas());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment gateway API',
      version,
      description:
        'Every /v1 request carries merchant_id, account_id and encryption_data, a signature over the call’s fields in its body ' +
        '(see each call, and its x-request-signature: the fields in order, then the account’s sign_key). ' +
        'Answers and notifications are signed by the gateway with the same rule. Notifications are form posts to notify_url with ' +
        'X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed by sign_key>. The merchant portal signs people in ' +
        'with a session cookie. Error codes: ' +
        Object.keys(ERROR_CODES).join(', ') +
        '.',
      license: { name: 'Open source' },
    },
    servers: [{ url: baseUrl }],
    tags: TAGS,
    paths,
    components: {
      schemas,
      // what any address answers before it is routed (the body is read first), and what one this document does not list answers
      responses: {
        NotFound: merged(errorResponse(404, 'No such address (any address this document does not list)'), page('No such portal page')),
        UnreadableBody: errorResponse(400, 'The body could not be read: not valid JSON, nested too deeply, or a reserved member name'),
        BodyTooLarge: errorResponse(413, 'Body over the limit of its address (docs/security.md, “Bodies”)'),
        UnsupportedBody: errorResponse(415, ERROR_TEXT[415]!),
      },
      securitySchemes: {
        operatorKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An operator key’s secret (OPERATOR_KEYS); /admin is not served at all while OPERATOR_KEYS is unset',
        },
        portalSession: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'The merchant portal’s session, set by POST /portal/login (HttpOnly, SameSite=Lax, path /portal)',
        },
      },
    },
  };
}

const TAGS = [
  ['Payments', 'Card payments: direct (authorise), hosted checkout, and the ranking of payment methods'],
  ['Operations', 'Capture, cancel, review and refund of payments, in batches'],
  ['Queries', 'Payments and refunds looked up by the merchant’s server'],
  ['Subscriptions', 'Recurring contracts created with a payment'],
  ['Notifications', 'The gateway’s signed posts to notify_url'],
  ['Payouts', 'Payments to beneficiaries from the account’s deposit balance'],
  ['Test clocks', 'Time-driven behaviour tested without waiting, per clock, on sandbox accounts'],
  ['Saved cards', 'Cards shoppers saved on the hosted card page, listed and removed by the merchant'],
  ['Disputes', 'Chargebacks: the card holder’s bank taking a captured payment back, answered with evidence or accepted'],
  ['Hosted pages', 'Pages for shoppers: card form, 3-D Secure challenge, result, and their files'],
  ['Operating', 'Health, metrics and this document'],
  ['Merchant portal', 'Pages for the merchant’s people, behind a session cookie'],
  ['Operators', 'Merchants, accounts, sign keys, suspension, portal users and the audit, for the gateway’s operators (docs/operators.md)'],
].map(([name, description]) => ({ name, description }));
