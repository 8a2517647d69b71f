import fc from 'fast-check';
import type { ContractDocument, JsonSchema } from './document.js';

/** How far a generated value may go: long texts and arrays cost time and say little more. */
const MAX_TEXT = 48;
const MAX_ITEMS = 3;

const ABSENT = Symbol('absent');

const patternCache = new Map<string, fc.Arbitrary<string> | undefined>();

/** Strings of a pattern, or undefined when fast-check cannot generate it (a lookahead). */
function matching(pattern: string): fc.Arbitrary<string> | undefined {
  if (!patternCache.has(pattern)) {
    let arb: fc.Arbitrary<string> | undefined;
    try {
      arb = fc.stringMatching(new RegExp(pattern, 'u'), { size: 'small' });
      fc.sample(arb, 1);
    } catch {
      arb = undefined;
    }
    patternCache.set(pattern, arb);
  }
  return patternCache.get(pattern);
}

/** Every pattern a string schema carries (zod writes a second one under allOf). */
function patternsOf(s: JsonSchema): string[] {
  const own = typeof s.pattern === 'string' ? [s.pattern] : [];
  const more = ((s.allOf as JsonSchema[] | undefined) ?? []).flatMap((a) => (typeof a.pattern === 'string' ? [a.pattern] : []));
  return [...own, ...more];
}

function stringOf(s: JsonSchema): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  const fits = (v: string) => [...v].length >= min && [...v].length <= max;
  const patterns = patternsOf(s).map((p) => new RegExp(p, 'u'));
  const all = (v: string) => fits(v) && patterns.every((p) => p.test(v));
  const examples = (Array.isArray(s.examples) ? s.examples : []).filter((e): e is string => typeof e === 'string' && all(e));
  const generators: fc.WeightedArbitrary<string>[] = [];
  const first = patterns.length ? matching(patterns[0]!.source) : undefined;
  if (first) generators.push({ arbitrary: first, weight: 1 });
  else if (patterns.length === 0) {
    const cap = Math.max(min, Math.min(max, MAX_TEXT));
    generators.push(
      { arbitrary: fc.string({ minLength: min, maxLength: cap }), weight: 1 },
      { arbitrary: fc.string({ minLength: min, maxLength: cap, unit: 'grapheme' }), weight: 1 },
    );
  }
  // the schema's examples too: a pattern says what a value looks like, an example is one that passes the checks behind it
  if (examples.length) generators.push({ arbitrary: fc.constantFrom(...examples), weight: 2 });
  if (generators.length === 0) throw new Error(`no way to generate strings of ${JSON.stringify(s)}: give the schema examples`);
  return fc.oneof(...generators).filter(all);
}

/**
 * Values of a JSON Schema of the document (the subset zod writes: types, lengths, patterns, enums, const,
 * anyOf, allOf of patterns, objects with required members and an anyOf of required groups, arrays).
 */
export function arbitraryOf(schema: JsonSchema | undefined, doc: ContractDocument, depth = 0): fc.Arbitrary<unknown> {
  const s = doc.resolve(schema) ?? {};
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.type)) return fc.oneof(...(s.type as string[]).map((type) => arbitraryOf({ ...s, type }, doc, depth + 1)));
  const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (branches && s.type !== 'object') return fc.oneof(...branches.map((b) => arbitraryOf(b, doc, depth + 1)));
  switch (s.type) {
    case 'string':
      return stringOf(s);
    case 'integer':
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : -1e9;
      const max = typeof s.maximum === 'number' ? s.maximum : 1e9;
      return s.type === 'integer'
        ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minItems = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxItems = Math.max(minItems, Math.min(typeof s.maxItems === 'number' ? s.maxItems : MAX_ITEMS, MAX_ITEMS));
      return fc.array(arbitraryOf(s.items as JsonSchema, doc, depth + 1), { minLength: minItems, maxLength: maxItems });
    }
    case 'object':
      return objectOf(s, doc, depth);
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
}

/**
 * An object: its required members, each optional one now and then (one time in three: a body with every
 * optional member rarely passes every rule between them), and one whole group of its anyOf.
 */
function objectOf(s: JsonSchema, doc: ContractDocument, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const groups = ((s.anyOf as JsonSchema[] | undefined) ?? []).map((g) => ({
    required: (g.required as string[] | undefined) ?? [],
    properties: (g.properties ?? {}) as Record<string, JsonSchema>,
  }));
  // if/then rules under allOf: a field that brings others when given, or when it has a value (const)
  const rules = ((s.allOf as JsonSchema[] | undefined) ?? []).flatMap((r) => {
    if (!r.if || !r.then) return [];
    const when = ((r.if as JsonSchema).required as string[])[0]!;
    const value = ((r.if as JsonSchema).properties as Record<string, JsonSchema> | undefined)?.[when]?.const;
    return [{ when, value, needs: (r.then as JsonSchema).required as string[] }];
  });
  const keyed = rules.find((r) => r.value !== undefined)?.when;
  const member = (name: string, extra?: JsonSchema) =>
    arbitraryOf(extra ? mergedString(doc.resolve(props[name]), extra) : props[name], doc, depth + 1);
  const group = groups.length ? fc.constantFrom(...groups) : fc.constant(undefined);
  // a member whose value brings others is chosen first, so the members it brings are generated with it
  const key = keyed ? (arbitraryOf(props[keyed], doc, depth + 1) as fc.Arbitrary<unknown>) : fc.constant(undefined);
  return fc.tuple(group, key).chain(([g, keyValue]) => {
    const must = new Set([...required, ...(g?.required ?? [])]);
    for (const r of rules) if (r.value !== undefined && r.value === keyValue) r.needs.forEach((n) => must.add(n));
    const entries = Object.keys(props).map((name): [string, fc.Arbitrary<unknown>] => {
      if (name === keyed) return [name, fc.constant(keyValue)];
      const value = member(name, g?.properties[name] ?? (must.has(name) && !required.has(name) ? { minLength: 1 } : undefined));
      return [name, must.has(name) ? value : fc.option(value, { freq: 2, nil: ABSENT })];
    });
    return fc
      .record(Object.fromEntries(entries))
      .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ABSENT)) as Record<string, unknown>)
      .map((o) => {
        // a member given without the ones it brings is left out
        for (const { when, value, needs } of rules)
          if (value === undefined && !must.has(when) && needs.some((n) => o[n] === undefined || o[n] === '')) delete o[when];
        return o;
      })
      .filter((o) => Object.keys(o).length >= Number(s.minProperties ?? 0));
  });
}

/** A member's string schema with a group's extra constraint (minLength 1) folded in, for generation. */
function mergedString(base: JsonSchema | undefined, extra: JsonSchema): JsonSchema {
  if (!base) return extra;
  const b = base.anyOf ? ((base.anyOf as JsonSchema[]).find((x) => x.const !== '') ?? base) : base;
  return { ...b, ...extra, minLength: Math.max(Number(b.minLength ?? 0), Number(extra.minLength ?? 0)) };
}
