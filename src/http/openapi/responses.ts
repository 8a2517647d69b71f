import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../core/kernel/errors.js';
import { errorSchema } from './answers.js';

type Json = Record<string, unknown>;

/** One response of an operation as the document writes it. */
export interface ResponseSpec {
  description: string;
  content?: Record<string, { schema: Json }>;
  headers?: Record<string, Json>;
}
export type Responses = Record<number, ResponseSpec | { $ref: string }>;

/** An address that is not a /v1 API call: hosted pages for shoppers, the portal and the operator's endpoints. */
export interface PageSpec {
  method: 'get' | 'post';
  /** Express pattern (`:name` parameters) */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  responses: Responses;
  /** the portal's session cookie; every other page is public */
  security?: 'portalSession';
  /** query and cookie parameters besides the path's own */
  parameters?: Record<string, unknown>[];
}

/** components.responses.NotFound: what any address the document does not list answers (JSON, or a portal page). */
export const NOT_FOUND = { $ref: '#/components/responses/NotFound' };

export const schemaRef = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const text = { type: 'string' };

/** The statuses the gateway's error codes answer with; 500 is no answer a client may cause (docs/api.md#errors-and-idempotency). */
export const ERROR_STATUSES = [...new Set(Object.values(ERROR_CODES))].filter((s) => s < 500 || s === 503).sort();

const codesOf = (status: number) => (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ERROR_CODES[c] === status);

/** The JSON error body of one status: the Error shape with only the codes that status is answered with. */
export function errorSchemaOf(status: number): z.ZodType {
  const [first, ...rest] = codesOf(status);
  return errorSchema.extend({ code: z.enum([first!, ...rest]) }).meta({
    description: `An error answered with HTTP ${status}: ${codesOf(status).join(', ')}`,
  });
}

/** Retry-After on every 503 (the error handler sets 1 s when the error names no other wait) and on rate limits. */
export const RETRY_AFTER: Json = {
  description: 'Seconds to wait before trying again',
  required: true,
  schema: { type: 'string', pattern: '^\\d+$' },
};

/** An error answered as the JSON error body; `also` adds other media types (the respon refusal, a page). */
export function errorResponse(status: number, description: string, also: Record<string, { schema: Json }> = {}): ResponseSpec {
  return {
    description,
    content: { 'application/json': { schema: schemaRef(`Error${status}`) }, ...also },
    ...(status === 503 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
  };
}

/** An HTML page (the hosted pages, the portal, the front door). */
export const page = (description: string): ResponseSpec => ({ description, content: { 'text/html': { schema: text } } });

/** A 303 to another page; Express adds a short text that names the address. */
export const seeOther = (description: string): ResponseSpec => ({
  description,
  headers: { Location: { description: 'Where the browser goes next', required: true, schema: text } },
});

/** A JSON answer of a component schema. */
export const json = (description: string, schema: string): ResponseSpec => ({
  description,
  content: { 'application/json': { schema: schemaRef(schema) } },
});

/** A body of another type (CSS, JavaScript, an image, Prometheus text). */
export const body = (description: string, ...types: string[]): ResponseSpec => ({
  description,
  content: Object.fromEntries(types.map((t) => [t, { schema: text }])),
});

/** Adds media types to a response (a JSON error that can also be a page, and so on). */
export function merged(
  a: ResponseSpec | { $ref: string } | undefined,
  b: ResponseSpec | { $ref: string },
): ResponseSpec | { $ref: string } {
  if (!a) return b;
  if ('$ref' in a || '$ref' in b) throw new Error('a response given by reference is not merged');
  return {
    description: a.description === b.description ? a.description : `${a.description}; or ${b.description}`,
    ...(a.content || b.content ? { content: { ...a.content, ...b.content } } : {}),
    ...(a.headers || b.headers ? { headers: { ...a.headers, ...b.headers } } : {}),
  };
}

/** What each error status means, for the descriptions. */
export const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request: unreadable body, missing or malformed field (the message names the field)',
  401: 'Wrong signature, or unknown merchant or account (one message for both)',
  403: 'Not allowed',
  404: 'Nothing found under that identifier',
  409: 'Conflict: order_no or request_id used with other content, or an Idempotency-Key used with another body or while its first call runs',
  413: 'Body over the size limit',
  415: 'Body in an encoding or charset the gateway does not read',
  422: 'Not enough deposit balance',
  429: 'Over the rate limit (Retry-After says when to try again)',
  503: 'The store or the acquirer did not answer, or the outcome is not known yet; try again (Retry-After)',
};
