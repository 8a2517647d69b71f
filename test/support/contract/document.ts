import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../../src/http/openapi/document.js';

/** The parts of the OpenAPI document the answer check reads. */
export interface MediaType {
  schema?: JsonSchema;
}
export interface ResponseObject {
  description: string;
  headers?: Record<string, { required?: boolean; schema?: JsonSchema }>;
  content?: Record<string, MediaType>;
}
export interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject | { $ref: string }>;
  requestBody?: { content: Record<string, MediaType> };
  'x-request-signature'?: string[];
  [key: string]: unknown;
}
export type JsonSchema = Record<string, unknown>;
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema>; responses?: Record<string, ResponseObject> };
  [key: string]: unknown;
}

/** An operation of the document with the expression its path template matches. */
export interface IndexedOperation {
  method: string;
  template: string;
  operation: OperationObject;
}

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The document as GET /openapi.json serves it (the same function, the same arguments), with a JSON Schema
 * validator that resolves its `#/components/...` references, and its operations indexed by path template.
 */
export class ContractDocument {
  readonly doc: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp; literal: number }[];

  constructor(doc: OpenApiDocument = openApiDocument('http://gateway.test', VERSION) as OpenApiDocument) {
    this.doc = doc;
    // the document is added whole, so a schema is compiled by its JSON pointer and its $refs resolve in it;
    // strict off because the document's own keywords (openapi, paths, xml, ...) are not JSON Schema's
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    // formats are carried by a pattern beside them (zod writes both): the pattern is what is checked
    for (const format of ['email', 'ipv4', 'ipv6', 'uri', 'date-time', 'date']) this.ajv.addFormat(format, true);
    this.ajv.addSchema(doc as unknown as object, DOC_ID);
    // a path with fewer parameters wins over one with more (/v1/checkout before /v1/{x}), as a router's fixed routes would
    this.templates = Object.keys(doc.paths)
      .map((template) => ({
        template,
        literal: template.replace(/\{[^}]+\}/g, '').length,
        pattern: new RegExp(
          `^${template
            .split(/(\{[^}]+\})/)
            .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
            .join('')}/?$`,
          // Express's router matches paths in any letter case, with or without a trailing slash
          'i',
        ),
      }))
      .sort((a, b) => b.literal - a.literal);
  }

  /** The operation that answers `method path`, or the path template alone when the path has no such method. */
  find(method: string, path: string): { template?: string; operation?: IndexedOperation } {
    const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      decoded = path;
    }
    let template: string | undefined;
    for (const t of this.templates) {
      if (!t.pattern.test(path) && !t.pattern.test(decoded)) continue;
      const operation = this.doc.paths[t.template]![m];
      if (operation) return { template: t.template, operation: { method: m, template: t.template, operation } };
      template ??= t.template;
    }
    return { template };
  }

  /** A response object, its `$ref` to components.responses followed. */
  response(ref: ResponseObject | { $ref: string }): ResponseObject {
    if ('$ref' in ref) {
      const name = ref.$ref.replace('#/components/responses/', '');
      const found = this.doc.components.responses?.[name];
      if (!found) throw new Error(`the document has no ${ref.$ref}`);
      return found;
    }
    return ref;
  }

  /** The validator of the schema at a JSON pointer into the document (`#/paths/...`), compiled once. */
  validator(pointer: string): ValidateFunction {
    let v = this.validators.get(pointer);
    if (!v) {
      const found = this.ajv.getSchema(`${DOC_ID}${pointer}`);
      if (!found) throw new Error(`the document has no schema at ${pointer}`);
      this.validators.set(pointer, (v = found));
    }
    return v;
  }

  /** A schema with its $ref (into this document) followed, for reading its shape (not for validation). */
  resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
    let s = schema;
    for (let i = 0; s && typeof s.$ref === 'string' && i < 16; i++) s = this.at(s.$ref.replace(/^#/, ''));
    return s;
  }

  /** The value at a JSON pointer (`/components/schemas/Error`). */
  at(pointer: string): JsonSchema | undefined {
    let v: unknown = this.doc;
    for (const raw of pointer.split('/').slice(1)) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    }
    return v as JsonSchema | undefined;
  }
}

const DOC_ID = 'https://gateway.test/openapi.json';

/** A JSON pointer segment. */
export const pointerSegment = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

let shared: ContractDocument | undefined;
/** The document of this source tree, built once per test process. */
export function contractDocument(): ContractDocument {
  return (shared ??= new ContractDocument());
}
