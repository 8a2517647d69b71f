import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ErrorObject } from 'ajv';
import { contractDocument, pointerSegment, type ContractDocument, type JsonSchema, type ResponseObject } from './document.js';

/** One HTTP answer as the client received it. */
export interface Answer {
  method: string;
  /** the request's path, without the query */
  path: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

const mediaTypeOf = (contentType: string): string => contentType.split(';')[0]!.trim().toLowerCase();
const isJson = (type: string): boolean => type === 'application/json' || type.endsWith('+json');
const isXml = (type: string): boolean => type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml');

/** The document's media type that an answer's type falls under: exact, `type/*` or `*\/*`. */
function documentedType(content: Record<string, unknown>, type: string): string | undefined {
  if (type in content) return type;
  const family = `${type.split('/')[0]}/*`;
  if (family in content) return family;
  return '*/*' in content ? '*/*' : undefined;
}

/** The response key of a status: the code itself, its range (`4XX`) or `default`. */
function responseKey(responses: Record<string, unknown>, status: number): string | undefined {
  const code = String(status);
  if (code in responses) return code;
  const range = `${code[0]}XX`;
  if (range in responses) return range;
  return 'default' in responses ? 'default' : undefined;
}

const describeErrors = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 6)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    )
    .join('; ');

const shorten = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * An XML answer as the JSON value its schema describes: the root element's children as members, every text
 * as a string (parseTagValue off: "0010" stays "0010"), and an element the schema makes an array always an
 * array (the gateway writes an array as repeated elements, so none of them means an empty array).
 */
export function xmlAsJson(text: string, rootName: string, schema: JsonSchema | undefined, doc: ContractDocument): unknown {
  const arrays = new Set<string>();
  const walk = (s: JsonSchema | undefined, path: string, depth: number): void => {
    const r = doc.resolve(s);
    if (!r || depth > 6) return;
    for (const [name, p] of Object.entries((r.properties ?? {}) as Record<string, JsonSchema>)) {
      const inner = doc.resolve(p);
      if (inner?.type === 'array') {
        arrays.add(`${path}.${name}`);
        walk(inner.items as JsonSchema, `${path}.${name}`, depth + 1);
      } else walk(inner, `${path}.${name}`, depth + 1);
    }
  };
  walk(schema, rootName, 0);
  const parser = new XMLParser({
    parseTagValue: false,
    ignoreDeclaration: true,
    ignoreAttributes: true,
    trimValues: false,
    isArray: (_name, jPath) => arrays.has(String(jPath)),
  });
  const parsed = parser.parse(text) as Record<string, unknown>;
  const root = parsed[rootName];
  if (root === undefined) return undefined;
  const value: Record<string, unknown> = root === '' ? {} : (root as Record<string, unknown>);
  for (const path of arrays) {
    const parts = path.split('.').slice(1);
    if (parts.length === 1 && value[parts[0]!] === undefined) value[parts[0]!] = [];
  }
  return value;
}

/**
 * What an address the document does not list may answer: components.responses by status. Express's router
 * knows no other address (404), and the body is read before routing (400, 413, 415).
 */
const UNLISTED: Record<number, string> = { 400: 'UnreadableBody', 404: 'NotFound', 413: 'BodyTooLarge', 415: 'UnsupportedBody' };

/**
 * What is wrong with an answer against the document: its status not listed for the operation, its content
 * type not one the response lists, its body not of the schema (XML parsed first), a required header missing.
 * An empty list: the answer fits.
 */
export function answerProblems(answer: Answer, doc: ContractDocument = contractDocument()): string[] {
  // the example merchant shop (NODE_ENV=development only) is a merchant's site beside the gateway, not the gateway
  if (/^\/examples(\/|$)/i.test(answer.path)) return [];
  const found = doc.find(answer.method, answer.path);
  const what = `${answer.method} ${answer.path} answered ${answer.status}`;
  let response: ResponseObject;
  let pointer: string;
  if (!found.operation) {
    const name = UNLISTED[answer.status];
    if (!name) return [`${what}, but the document has no operation ${answer.method.toUpperCase()} ${found.template ?? answer.path}`];
    const unlisted = doc.doc.components.responses?.[name];
    if (!unlisted) return [`${what}: the document has no components.responses.${name} for addresses it does not list`];
    response = unlisted;
    pointer = `#/components/responses/${name}`;
  } else {
    const { operation, template, method } = found.operation;
    const key = responseKey(operation.responses, answer.status);
    if (key === undefined)
      return [
        `${what}, a status the document does not list for ${operation.operationId} (${method.toUpperCase()} ${template}: ${Object.keys(operation.responses).join(', ')})`,
      ];
    const raw = operation.responses[key]!;
    response = doc.response(raw);
    pointer = '$ref' in raw ? raw.$ref : `#/paths/${pointerSegment(template)}/${method}/responses/${pointerSegment(key)}`;
  }
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {}))
    if (header.required && answer.headers[name.toLowerCase()] === undefined) problems.push(`${what} without its required header ${name}`);
  const hasBody = answer.body.length > 0 && answer.method.toUpperCase() !== 'HEAD';
  const contentType = answer.headers['content-type'];
  if (!response.content || Object.keys(response.content).length === 0) {
    // a redirect's short text ("See Other. Redirecting to ...") is Express's courtesy, not content
    if (hasBody && !(answer.status >= 300 && answer.status < 400))
      problems.push(`${what} with a body, where the document lists no content`);
    return problems;
  }
  if (typeof contentType !== 'string') {
    if (hasBody) problems.push(`${what} with a body but no Content-Type`);
    return problems;
  }
  const type = mediaTypeOf(contentType);
  const documented = documentedType(response.content, type);
  if (!documented) {
    problems.push(`${what} as ${type}; the document lists ${Object.keys(response.content).join(', ')} for it`);
    return problems;
  }
  if (!hasBody) return problems;
  const schema = response.content[documented]!.schema;
  if (!schema) return problems;
  const schemaPointer = `${pointer}/content/${pointerSegment(documented)}/schema`;
  const text = answer.body.toString('utf8');
  let value: unknown;
  if (isJson(type)) {
    try {
      value = JSON.parse(text);
    } catch {
      return [...problems, `${what} as ${type}, but the body is not JSON: ${shorten(text)}`];
    }
  } else if (isXml(type) && doc.resolve(schema)?.type !== 'string') {
    const wellFormed = XMLValidator.validate(text);
    if (wellFormed !== true) return [...problems, `${what} as ${type}, but the body is not well-formed XML: ${wellFormed.err.msg}`];
    const resolved = doc.resolve(schema);
    const rootName = (resolved?.xml as { name?: string } | undefined)?.name;
    if (!rootName) return [...problems, `${what} as ${type}: the document's schema names no root element (xml.name)`];
    value = xmlAsJson(text, rootName, schema, doc);
    if (value === undefined) return [...problems, `${what} as ${type}, but its root element is not <${rootName}>: ${shorten(text)}`];
  } else {
    value = text;
  }
  const validate = doc.validator(schemaPointer);
  if (!validate(value))
    problems.push(`${what} with a ${type} body outside the document's schema: ${describeErrors(validate.errors)}. Body: ${shorten(text)}`);
  return problems;
}
