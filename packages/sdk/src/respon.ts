import { XMLParser } from 'fast-xml-parser';
import type { PaymentAnswer } from './types.js';

const parser = new XMLParser({
  // every value stays the text that was signed: "10.00" must not become 10
  parseTagValue: false,
  ignoreDeclaration: true,
  isArray: (name) => name === 'risk_reasons',
});

/** Reads the /v1/authorise answer (root element respon) into its fields; throws when it is not one. */
export function parseRespon(xml: string): PaymentAnswer {
  const doc = parser.parse(xml) as { respon?: Record<string, unknown> };
  if (!doc.respon || typeof doc.respon !== 'object') throw new Error('not a respon document');
  const r = doc.respon;
  for (const [k, v] of Object.entries(r)) if (v === undefined || v === null) r[k] = '';
  const reasons = (r.risk_reasons as unknown[] | undefined) ?? [];
  r.risk_reasons = reasons.filter((x) => x && typeof x === 'object');
  return r as unknown as PaymentAnswer;
}
