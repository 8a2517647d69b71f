import { z } from 'zod';

type Fields = readonly string[];

/**
 * A rule that a request names one thing in either of two ways (card data or token_id, notify_id or order_no):
 * at least one group of fields is given whole, a field sent empty counting as absent (docs/api.md#bodies). The same
 * declaration checks requests (`check`, in a schema's rules) and writes the rule into the schema's JSON Schema
 * (`describe`: anyOf, each group required and not empty), so the OpenAPI document says what the route refuses.
 */
export function eitherOf(main: Fields, ...others: Fields[]) {
  const groups = [main, ...others];
  const message = `is required (or ${others.map((g) => g.join(', ')).join(', or ')})`;
  const present = (o: Record<string, unknown>, f: string) => o[f] !== undefined && o[f] !== '';
  return {
    /** Adds "is required (or …)" to each missing field of the main group when no group is given whole. */
    check(o: Record<string, unknown>, ctx: z.RefinementCtx, at: PropertyKey[] = []): void {
      if (groups.some((g) => g.every((f) => present(o, f)))) return;
      for (const f of main) if (!present(o, f)) ctx.addIssue({ code: 'custom', path: [...at, f], message });
    },
    /** Registers the rule as the schema's anyOf (on the schema itself: its identity, and its fast lane, are kept). */
    describe<T extends z.ZodType>(schema: T): T {
      const anyOf = groups.map((g) => ({
        required: [...g],
        properties: Object.fromEntries(g.map((f) => [f, { minLength: 1 }])),
      }));
      z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), anyOf } as z.GlobalMeta);
      return schema;
    },
  };
}

/**
 * A rule that a field, when given, brings others with it (a card sent is the card charged, token_id or not: its
 * expiry comes with it). `check` adds "is required with <field>" to each one missing; `describe` writes the
 * rule into the schema's JSON Schema as if/then under allOf.
 */
export function requiredWith(field: string, others: Fields) {
  const present = (o: Record<string, unknown>, f: string) => o[f] !== undefined && o[f] !== '';
  const notEmpty = (fields: Fields) => ({
    required: [...fields],
    properties: Object.fromEntries(fields.map((f) => [f, { minLength: 1 }])),
  });
  return {
    check(o: Record<string, unknown>, ctx: z.RefinementCtx): void {
      if (!present(o, field)) return;
      for (const f of others) if (!present(o, f)) ctx.addIssue({ code: 'custom', path: [f], message: `is required with ${field}` });
    },
    describe<T extends z.ZodType>(schema: T): T {
      const meta = z.globalRegistry.get(schema) as { allOf?: unknown[] } | undefined;
      const rule = { if: notEmpty([field]), then: notEmpty(others) };
      z.globalRegistry.add(schema, { ...meta, allOf: [...(meta?.allOf ?? []), rule] } as z.GlobalMeta);
      return schema;
    },
  };
}

/**
 * A rule that a field's value brings others with it (entity_type COMPANY: company_name). `check` adds "is
 * required when <field> is <value>" to each one missing; `describe` writes if/then under allOf.
 */
export function requiredWhen(field: string, value: string, others: Fields) {
  const present = (o: Record<string, unknown>, f: string) => o[f] !== undefined && o[f] !== '';
  return {
    check(o: Record<string, unknown>, ctx: z.RefinementCtx, at: PropertyKey[] = []): void {
      if (o[field] !== value) return;
      for (const f of others)
        if (!present(o, f)) ctx.addIssue({ code: 'custom', path: [...at, f], message: `is required when ${field} is ${value}` });
    },
    describe<T extends z.ZodType>(schema: T): T {
      const meta = z.globalRegistry.get(schema) as { allOf?: unknown[] } | undefined;
      const rule = {
        if: { required: [field], properties: { [field]: { const: value } } },
        then: { required: [...others], properties: Object.fromEntries(others.map((f) => [f, { minLength: 1 }])) },
      };
      z.globalRegistry.add(schema, { ...meta, allOf: [...(meta?.allOf ?? []), rule] } as z.GlobalMeta);
      return schema;
    },
  };
}
