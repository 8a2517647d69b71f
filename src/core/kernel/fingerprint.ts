import { maskCard } from './cards.js';

/**
 * What a canonical text leaves out of the top-level object, and the one member it writes in another form:
 * request fingerprints see neither the security code nor the expiry, and the card only as its masked number.
 */
export interface CanonicalView {
  /** tells views apart in the layouts' cache key (a hit also checks the view itself) */
  readonly key: string;
  readonly omit: ReadonlySet<string>;
  /** the member written as `as` writes it (JSON text) instead of as its value */
  readonly rewrite?: { readonly name: string; readonly as: (value: unknown) => string };
}

/** Views that leave out one member, by its name: made once, as layouts are cached by view. */
const OMITTING = new Map<string, CanonicalView>();
const MAX_OMITTING = 64;

function omitting(name: string): CanonicalView {
  const known = OMITTING.get(name);
  if (known !== undefined) return known;
  const view = { key: `-${name}`, omit: new Set([name]) };
  if (OMITTING.size < MAX_OMITTING) OMITTING.set(name, view);
  return view;
}

/**
 * JSON with keys sorted at every level, so the same request always has the same fingerprint. Iterative
 * (an explicit stack, not recursion), so no nesting depth can overflow the call stack. `view` (or the name
 * of one member to leave out) shapes the top-level object.
 */
export function canonicalJson(value: unknown, view?: string | CanonicalView): string {
  const v = typeof view === 'string' ? omitting(view) : view;
  // request bodies are at most 32 levels deep (http/middleware/body.ts): the recursive writer, which makes
  // no garbage per value, serves them; anything deeper takes the explicit stack below
  const shallow = shallowCanonical(value, 0, v);
  return shallow ?? deepCanonical(value, v);
}

/**
 * An object's members in canonical order, each with the text written before its value (`"name":`, after a
 * comma but for the first). Requests of one integration come with the same names in the same order, so
 * the order is sorted, and each name written as JSON, once per layout rather than once per request.
 */
interface Layout {
  /** the names as Object.keys gave them, and the view: to confirm a cache hit */
  from: readonly string[];
  view: CanonicalView | undefined;
  sorted: string[];
  prefixes: string[];
  /** where the view's rewritten member is in `sorted`; -1 when absent */
  rewriteAt: number;
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

function layoutOf(names: readonly string[], view: CanonicalView | undefined): Layout {
  for (let i = 0; i < recent.length; i++) {
    const r = recent[i]!;
    if (r.view === view && sameNames(r.from, names)) return r;
  }
  return keyedLayoutOf(names, view);
}

/** A layout the keyed cache may hold (bounded as it is) is also one of the recent ones. */
function remember(layout: Layout): Layout {
  recent[recentNext] = layout;
  recentNext = (recentNext + 1) % RECENT;
  return layout;
}

function keyedLayoutOf(names: readonly string[], view: CanonicalView | undefined): Layout {
  const key = names.length <= MAX_CACHED_NAMES ? `${view?.key ?? ''}\u0000${names.join('\u0000')}` : '';
  const cacheable = key !== '' && key.length <= MAX_KEY_LENGTH;
  const hit = cacheable ? LAYOUTS.get(key) : undefined;
  if (hit !== undefined && hit.view === view && sameNames(hit.from, names)) return remember(hit);
  const sorted = (view === undefined ? names.slice() : names.filter((n) => !view.omit.has(n))).sort();
  const prefixes = sorted.map((n, i) => `${i > 0 ? ',' : ''}${JSON.stringify(n)}:`);
  const layout = { from: names, view, sorted, prefixes, rewriteAt: view?.rewrite ? sorted.indexOf(view.rewrite.name) : -1 };
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

/** `view`: how the top-level object is written (members left out, one written in another form). */
function shallowCanonical(v: unknown, depth: number, view?: CanonicalView): string | undefined {
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
    const { sorted, prefixes, rewriteAt } = layoutOf(Object.keys(record), view);
    let text = '{';
    for (let i = 0; i < sorted.length; i++) {
      const item = i === rewriteAt ? view!.rewrite!.as(record[sorted[i]!]) : shallowCanonical(record[sorted[i]!], depth + 1);
      if (item === undefined) return undefined;
      text += prefixes[i]! + item;
    }
    return `${text}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function deepCanonical(value: unknown, view?: CanonicalView): string {
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
      const top = view !== undefined && v === value ? view : undefined;
      const names = (top ? all.filter((name) => !top.omit.has(name)) : all).sort();
      out.push('{');
      stack.push({ text: '}' });
      for (let i = names.length - 1; i >= 0; i--) {
        const name = names[i]!;
        stack.push(top?.rewrite?.name === name ? { text: top.rewrite.as(record[name]) } : { value: record[name] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(names[i])}:` });
      }
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  }
  return out.join('');
}

/** Members of a payment request never kept, even as a hash: the security code and the expiry (docs/security.md#card-data). */
const CARD_SECRETS = ['security_code', 'expiration_month', 'expiration_year'] as const;

/** The card as fingerprints see it: the masked number the payment keeps anyway (first 6, `***`, last 4). */
function maskedCard(value: unknown): string {
  const digits = typeof value === 'string' || typeof value === 'number' ? String(value).replace(/[ -]/g, '') : '';
  return JSON.stringify(maskCard(digits));
}

/** A request as its fingerprints see it: no signature (a payment's signs the card data), no security code or expiry. */
const REQUEST_VIEW: CanonicalView = {
  key: 'request',
  omit: new Set(['encryption_data', ...CARD_SECRETS]),
  rewrite: { name: 'card', as: maskedCard },
};

/** What fingerprints need of the core's dependencies: the vault's keyed hash. */
interface Fingerprinting {
  vault: { fingerprint(text: string): string };
}

/**
 * The request's fingerprint for idempotency (a payment's order_no, a payout's request_id, a checkout): every
 * field but the signature, the security code and the expiry, the card as its masked number; keyed by the
 * vault key. So the same order sent again with another security code is the same request, and nothing kept
 * derives from the security code.
 */
export function requestFingerprint(deps: Fingerprinting, body: Record<string, unknown>): string {
  // the view leaves members out as it writes, not by a rest copy of the body (V8 copies those field by field)
  return deps.vault.fingerprint(canonicalJson(body, REQUEST_VIEW));
}

/** The fingerprint of a call under an Idempotency-Key: its path and its request as requestFingerprint sees it. */
export function keyedCallFingerprint(deps: Fingerprinting, path: string, body: Record<string, unknown>): string {
  return deps.vault.fingerprint(`${path}\n${canonicalJson(body, REQUEST_VIEW)}`);
}

/**
 * The fingerprints as gateways kept them before they left the card data out: a payment's over every field but
 * the signature, a key's over the path and the whole body. A payment or a key kept then is still answered to
 * the same request: these are worked out only when the current form does not match, and never written.
 * undefined when the body has no card member (then both forms are the same).
 */
export function formerRequestFingerprint(deps: Fingerprinting, body: Record<string, unknown>): string | undefined {
  if (!Object.hasOwn(body, 'card') && !CARD_SECRETS.some((name) => Object.hasOwn(body, name))) return undefined;
  return deps.vault.fingerprint(canonicalJson(body, 'encryption_data'));
}

export function formerKeyedCallFingerprint(deps: Fingerprinting, path: string, body: Record<string, unknown>): string {
  return deps.vault.fingerprint(`${path}\n${canonicalJson(body)}`);
}

/**
 * True when a kept fingerprint is this request's: its fingerprint as made now, or (worked out only on a
 * mismatch) one of the forms earlier versions kept for the same request.
 */
export function sameRequest(kept: string, fingerprint: string, formerFingerprints?: () => readonly (string | undefined)[]): boolean {
  return kept === fingerprint || (formerFingerprints?.().includes(kept) ?? false);
}
