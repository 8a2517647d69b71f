import { z } from 'zod';

/**
 * A narrower success path for the widest request schemas. /v1/authorise and /v1/checkout have about 70 fields,
 * 42 of them plain optional text ("at most N characters, '' when absent"); zod runs each through three
 * wrappers (default, optional, string) and its checks, the largest part of the call's own CPU (measured in
 * docs/performance.md, "Library bypasses"). Here a field whose schema carries a lane (its
 * own check, written out) is checked by that lane, the other fields by zod (an object of those fields
 * only), then the call's cross-field rules run on the whole.
 *
 * The lane only ever accepts: any doubt (a lane's FAIL, zod's issue on the other fields, a rule's issue)
 * sends the body through the full zod schema, which then reports the field exactly as before. An answer from
 * here equals the full schema's output, key order included (test/http/schemas/fast-lane.test.ts checks
 * every lane and both schemas against zod with generated bodies).
 */

/** A lane's verdict: leave the value to zod (which will then say what is wrong with it). */
export const FAIL: unique symbol = Symbol('fail');
/** A lane's verdict on an absent value of an optional field: no key in the output. */
export const ABSENT: unique symbol = Symbol('absent');

/** The value a field's schema would output for `value` (undefined when absent), ABSENT, or FAIL. */
export type Lane = (value: unknown) => unknown;

const LANES = new WeakMap<z.ZodType, Lane>();

/** Gives `schema` a lane: `lane` must output what the schema outputs for every value it does not FAIL. */
export function withLane<T extends z.ZodType>(schema: T, lane: Lane): T {
  LANES.set(schema, lane);
  return schema;
}

/** The lane of a field's schema, if it has one (for the tests that hold each lane to its schema). */
export function laneOf(schema: z.ZodType): Lane | undefined {
  return LANES.get(schema);
}

/** The lane of a text field that must match `pattern` (its zod schema checks the same pattern). */
export const patternLane =
  (pattern: RegExp, absent: unknown = FAIL): Lane =>
  (v) =>
    v === undefined ? absent : typeof v === 'string' && pattern.test(v) ? v : FAIL;

/** The lane of a field that is one of `values`, `absent` when not sent. */
export const oneOfLane =
  (values: readonly string[], absent: unknown = FAIL): Lane =>
  (v) =>
    v === undefined ? absent : typeof v === 'string' && values.includes(v) ? v : FAIL;

/** The lane of an optional text field: '' when absent or sent empty, `accepts` decides on any other text. */
export const optionalTextLane =
  (accepts: (v: string) => boolean): Lane =>
  (v) =>
    v === undefined || v === '' ? '' : typeof v === 'string' && accepts(v) ? v : FAIL;

type Rules<O> = (o: O, ctx: z.RefinementCtx<O>) => void;

/** Builds the output from the lanes' values and zod's output of the other fields (see `assembler`). */
type Assemble = (others: Record<string, unknown>, body: Record<string, unknown>) => unknown;

interface Plan {
  /** the fields without a lane */
  rest: z.ZodType;
  restKeys: readonly string[];
  /** zod's output of `rest` for a body that has none of its fields (FAIL when zod refuses such a body) */
  restOfNone: Readonly<Record<string, unknown>> | typeof FAIL;
  assemble: Assemble;
  rules: Rules<Record<string, unknown>> | undefined;
}

/**
 * The output in the shape's order, as zod builds it (the same keys, in the same order), written out as one
 * function of named property reads and writes, as zod's own object parser is: a loop over 70 computed keys
 * cost more than the 42 lanes it fills. The names are the schema's own field names, never request data.
 */
export function assembler(keys: readonly string[], lanes: readonly (Lane | undefined)[], generate = true): Assemble {
  if (!generate) return loopAssembler(keys, lanes);
  const lines = keys.map((key, i) => {
    const k = JSON.stringify(key);
    if (lanes[i] === undefined) return `if (${k} in others) out[${k}] = others[${k}];`;
    // zod keeps an optional key sent as undefined (JSON cannot send one, code can)
    return `v = lanes[${i}](body[${k}]); if (v === FAIL) return FAIL; if (v !== ABSENT) out[${k}] = v; else if (${k} in body) out[${k}] = undefined;`;
  });
  let build: (...args: unknown[]) => unknown;
  try {
    build = new Function(
      'FAIL',
      'ABSENT',
      'lanes',
      'others',
      'body',
      `'use strict'; const out = {}; let v;\n${lines.join('\n')}\nreturn out;`,
    ) as (...args: unknown[]) => unknown;
  } catch {
    // code generation refused (node --disallow-code-generation-from-strings): the same output by a loop
    return loopAssembler(keys, lanes);
  }
  return (others, body) => build(FAIL, ABSENT, lanes, others, body);
}

/** The assembler's output by a loop over the keys: slower, for a process that refuses generated code. */
function loopAssembler(keys: readonly string[], lanes: readonly (Lane | undefined)[]): Assemble {
  return (others, body) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const lane = lanes[i];
      if (lane === undefined) {
        if (key in others) out[key] = others[key];
        continue;
      }
      const v = lane(body[key]);
      if (v === FAIL) return FAIL;
      if (v !== ABSENT) out[key] = v;
      else if (key in body) out[key] = undefined;
    }
    return out;
  };
}

const PLANS = new WeakMap<z.ZodType, Plan>();

/**
 * `z.object(shape).superRefine(rules)` (or without rules), parsed by `parseOrThrow` through the lanes of its
 * fields. The schema itself is an ordinary zod object: OpenAPI, error messages and every other use see no
 * difference.
 */
export function requestObject<S extends z.ZodRawShape>(shape: S, rules?: Rules<z.output<z.ZodObject<S>>>): z.ZodObject<S> {
  const object = z.object(shape);
  const schema = rules ? object.superRefine(rules) : object;
  const keys = Object.keys(shape);
  // zod leaves a "__proto__" field out of its output: such a shape keeps to the full schema
  if (keys.includes('__proto__')) return schema;
  const lanes = keys.map((k) => LANES.get(shape[k] as z.ZodType));
  const restKeys = keys.filter((_, i) => lanes[i] === undefined);
  const rest = z.object(Object.fromEntries(restKeys.map((k) => [k, shape[k]!])));
  const none = rest.safeParse({});
  PLANS.set(schema, {
    rest,
    restKeys,
    restOfNone: none.success ? Object.freeze(none.data as Record<string, unknown>) : FAIL,
    assemble: assembler(keys, lanes),
    rules: rules as Rules<Record<string, unknown>> | undefined,
  });
  return schema;
}

/**
 * The output of `schema` for `input` when the lanes, zod on the other fields and the rules all accept it;
 * FAIL otherwise (and for a schema not made by `requestObject`), when only the full schema may answer.
 */
export function parseByLanes(schema: z.ZodType, input: unknown): unknown {
  const plan = PLANS.get(schema);
  if (plan === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) return FAIL;
  const body = input as Record<string, unknown>;
  // most bodies send none of the fields without a lane (arrays and objects such as account_owner): zod's
  // output for those is the same every time
  let others = plan.restOfNone;
  if (plan.restKeys.some((k) => k in body)) {
    const rest = plan.rest.safeParse(body);
    if (!rest.success) return FAIL;
    others = rest.data as Record<string, unknown>;
  }
  if (others === FAIL) return FAIL;
  const assembled = plan.assemble(others, body);
  if (assembled === FAIL) return FAIL;
  const out = assembled as Record<string, unknown>;
  if (plan.rules) {
    let refused = false;
    // the rules only add issues; any issue at all sends the body to the full schema, which words it
    const ctx = {
      value: out,
      issues: [],
      addIssue: () => {
        refused = true;
      },
    } as unknown as z.RefinementCtx<Record<string, unknown>>;
    plan.rules(out, ctx);
    if (refused) return FAIL;
  }
  return out;
}
