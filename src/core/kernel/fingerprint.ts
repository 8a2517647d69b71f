import type { CoreDeps } from '../ports/deps.js';

/**
 * JSON with keys sorted at every level, so the same request always has the same fingerprint. Iterative
 * (an explicit stack, not recursion), so no nesting depth can overflow the call stack.
 */
export function canonicalJson(value: unknown, omit?: string): string {
  // request bodies are at most 32 levels deep (http/middleware/body.ts): the recursive writer, which makes
  // no garbage per value, serves them; anything deeper takes the explicit stack below
  const shallow = shallowCanonical(value, 0, omit);
  return shallow ?? deepCanonical(value, omit);
}

/** Field names repeat from request to request: their JSON text is kept (a bounded number of them). */
const QUOTED = new Map<string, string>();
function quotedKey(name: string): string {
  let q = QUOTED.get(name);
  if (q === undefined) {
    q = JSON.stringify(name);
    if (QUOTED.size < 2048 && name.length <= 64) QUOTED.set(name, q);
  }
  return q;
}

/** Recursion bounded by this depth; undefined when the value is deeper. */
const RECURSION_LIMIT = 64;

/** `omit`: a member of the top-level object left out (as if it were not there). */
function shallowCanonical(v: unknown, depth: number, omit?: string): string | undefined {
  if (Array.isArray(v)) {
    if (depth >= RECURSION_LIMIT) return undefined;
    let text = '[';
    for (let i = 0; i < v.length; i++) {
      const item = shallowCanonical(v[i], depth + 1);
      if (item === undefined) return undefined;
      text += i > 0 ? `,${item}` : item;
    }
    return `${text}]`;
  }
  if (v && typeof v === 'object') {
    if (depth >= RECURSION_LIMIT) return undefined;
    const record = v as Record<string, unknown>;
    const names = Object.keys(record).sort();
    let text = '{';
    let written = 0;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === omit) continue;
      const item = shallowCanonical(record[names[i]!], depth + 1);
      if (item === undefined) return undefined;
      text += `${written++ > 0 ? ',' : ''}${quotedKey(names[i]!)}:${item}`;
    }
    return `${text}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function deepCanonical(value: unknown, omit?: string): string {
  const out: string[] = [];
  // a pending item is either a value to write or a piece of text (separators, closing brackets, keys)
  const stack: ({ text: string } | { value: unknown })[] = [{ value }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (v && typeof v === 'object') {
      const record = v as Record<string, unknown>;
      const all = Object.keys(record);
      const names = (omit !== undefined && v === value ? all.filter((name) => name !== omit) : all).sort();
      out.push('{');
      stack.push({ text: '}' });
      for (let i = names.length - 1; i >= 0; i--) {
        stack.push({ value: record[names[i]!] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(names[i])}:` });
      }
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  }
  return out.join('');
}

/**
 * The request's fingerprint for idempotency: everything but its signature, keyed by the vault key (it may
 * cover card or bank data, which must not be recoverable by guessing).
 */
export function requestFingerprint(deps: Pick<CoreDeps, 'vault'>, body: Record<string, unknown>): string {
  // the signature left out by the writer, not by a rest copy of the body (V8 copies those field by field)
  return deps.vault.fingerprint(canonicalJson(body, 'encryption_data'));
}
