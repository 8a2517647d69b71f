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

/**
 * An object's members in canonical order, each with the text written before its value (`"name":`, after a
 * comma but for the first). Requests of one integration come with the same names in the same order, so
 * the order is sorted, and each name written as JSON, once per layout rather than once per request.
 */
interface Layout {
  /** the names as Object.keys gave them, and the one left out: to confirm a cache hit */
  from: readonly string[];
  omit: string | undefined;
  sorted: string[];
  prefixes: string[];
}
const LAYOUTS = new Map<string, Layout>();
/** at most 512 layouts of at most 256 names in 8 KB of text: a few MB whatever bodies arrive */
const MAX_LAYOUTS = 512;
const MAX_CACHED_NAMES = 256;
const MAX_KEY_LENGTH = 8192;

/**
 * The layouts used last, tried before the keyed cache: a request's few objects come with the names of the
 * request before it, and comparing names one by one (JSON.parse's names are internalised, so mostly a pointer
 * each) costs less than joining them into a key and hashing it.
 */
const RECENT = 8;
const recent: Layout[] = [];
let recentNext = 0;

function layoutOf(names: readonly string[], omit: string | undefined): Layout {
  for (let i = 0; i < recent.length; i++) {
    const r = recent[i]!;
    if (r.omit === omit && sameNames(r.from, names)) return r;
  }
  return keyedLayoutOf(names, omit);
}

/** A layout the keyed cache may hold (bounded as it is) is also one of the recent ones. */
function remember(layout: Layout): Layout {
  recent[recentNext] = layout;
  recentNext = (recentNext + 1) % RECENT;
  return layout;
}

function keyedLayoutOf(names: readonly string[], omit: string | undefined): Layout {
  const key = names.length <= MAX_CACHED_NAMES ? `${omit ?? ''}\u0000${names.join('\u0000')}` : '';
  const cacheable = key !== '' && key.length <= MAX_KEY_LENGTH;
  const hit = cacheable ? LAYOUTS.get(key) : undefined;
  if (hit !== undefined && hit.omit === omit && sameNames(hit.from, names)) return remember(hit);
  const sorted = (omit === undefined ? names.slice() : names.filter((n) => n !== omit)).sort();
  const layout = { from: names, omit, sorted, prefixes: sorted.map((n, i) => `${i > 0 ? ',' : ''}${JSON.stringify(n)}:`) };
  if (!cacheable) return layout;
  if (LAYOUTS.size < MAX_LAYOUTS) LAYOUTS.set(key, layout);
  return remember(layout);
}

/** A name may hold the separator of the cache key: a hit counts only when the names are the same. */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Text JSON writes as is between quotes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** Recursion bounded by this depth; undefined when the value is deeper. */
const RECURSION_LIMIT = 64;

/** `omit`: a member of the top-level object left out (as if it were not there). */
function shallowCanonical(v: unknown, depth: number, omit?: string): string | undefined {
  if (typeof v === 'string') return PLAIN_TEXT.test(v) ? `"${v}"` : JSON.stringify(v);
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
    const { sorted, prefixes } = layoutOf(Object.keys(record), omit);
    let text = '{';
    for (let i = 0; i < sorted.length; i++) {
      const item = shallowCanonical(record[sorted[i]!], depth + 1);
      if (item === undefined) return undefined;
      text += prefixes[i]! + item;
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
export function requestFingerprint(deps: { vault: { fingerprint(text: string): string } }, body: Record<string, unknown>): string {
  // the signature left out by the writer, not by a rest copy of the body (V8 copies those field by field)
  return deps.vault.fingerprint(canonicalJson(body, 'encryption_data'));
}
