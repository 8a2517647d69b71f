/** What the gateway keeps of a card: never the number in clear, never the security code. */
export interface CardSummary {
  masked: string;
  bin: string;
  last4: string;
  brand: string;
  exp_month: string;
  exp_year: string;
}

/** Luhn (mod 10) check of a digits-only card number. */
export function luhnValid(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  let sum = 0;
  let double = false;
  for (let i = pan.length - 1; i >= 0; i--) {
    let d = pan.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const BRANDS: [string, RegExp][] = [
  ['AMEX', /^3[47]/],
  ['DINERS', /^3(0[0-5]|[68])/],
  ['JCB', /^35(2[89]|[3-8])/],
  ['DISCOVER', /^(6011|65|64[4-9])/],
  ['UNIONPAY', /^62/],
  ['MASTERCARD', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/],
  ['MAESTRO', /^(5[06-9]|6\d)/],
  ['VISA', /^4/],
];

export function cardBrand(pan: string): string {
  for (const [brand, re] of BRANDS) if (re.test(pan)) return brand;
  return 'UNKNOWN';
}

/** First 6, `***`, last 4: the only form of the number that leaves the vault. */
export function maskCard(pan: string): string {
  return `${pan.slice(0, 6)}***${pan.slice(-4)}`;
}

export function summariseCard(pan: string, expMonth: string, expYear: string): CardSummary {
  return {
    masked: maskCard(pan),
    bin: pan.slice(0, 6),
    last4: pan.slice(-4),
    brand: cardBrand(pan),
    exp_month: expMonth,
    exp_year: expYear,
  };
}

/** Four-digit year from a two- or four-digit expiration_year. */
export function fullYear(year: string): number {
  return year.length === 2 ? 2000 + Number(year) : Number(year);
}

/** True when the card's expiry month has ended before `now` (a card is good through its expiry month). */
export function expiryPassed(expMonth: string, expYear: string, now: number): boolean {
  const y = fullYear(expYear);
  const m = Number(expMonth);
  const firstOfNextMonth = Date.UTC(y, m, 1);
  return firstOfNextMonth <= now;
}

/**
 * A run of 12 to 19 digits, single spaces or dashes allowed between them, not part of a longer run, and not
 * touching a mask (`400005***5556`): a mask's digits never join a run, so masked text masks to itself.
 */
const DIGIT_RUN = /(?<!\d|\d{6}\*\*\*)\d(?:[ -]?\d){11,18}(?!\d|\*\*\*\d{4})/g;
const DIGIT_RUN_START = /\d(?:[ -]?\d){11}/;

/**
 * Leading digits that card issuers use: Mir (2200-2204), Mastercard (2221-2720, 51-55), American Express,
 * Diners and JCB (3), Visa (4), Maestro (5, 6), Discover and UnionPay (6), RuPay (81, 82), Troy (9792). A
 * number outside them is no card number, however its check digit falls: a date stamp (2026...), a time in
 * milliseconds (17...), most numeric order numbers.
 */
const ISSUER_PREFIX = /^(?:220[0-4]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720|[3-6]|8[12]|9792)/;

/** A run of digits that may be a card number: 12 to 19 digits under an issuer's prefix, passing the Luhn check. */
export function cardShaped(digits: string): boolean {
  return ISSUER_PREFIX.test(digits) && luhnValid(digits);
}

/** A UUID (8-4-4-4-12 hexadecimal digits): an identifier, whatever runs of decimal digits it holds. */
const UUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/g;

/** Where a UUID or a hexadecimal identifier keeps its digit runs (see maskIdentifier). */
interface Keep {
  uuids: boolean;
  hexGlued: boolean;
}

const HEX_LETTER = /[A-Fa-f]/;

function maskRuns(text: string, keep: Keep): string {
  // most text holds no run of 12 digits at all: one test, no copy
  if (!DIGIT_RUN_START.test(text)) return text;
  const uuids = keep.uuids ? [...text.matchAll(UUID)].map((m) => [m.index, m.index + m[0].length] as const) : [];
  return text.replace(DIGIT_RUN, (run: string, at: number) => {
    if (uuids.some(([from, to]) => at >= from && at + run.length <= to)) return run;
    if (keep.hexGlued && (HEX_LETTER.test(text.charAt(at - 1)) || HEX_LETTER.test(text.charAt(at + run.length)))) return run;
    const digits = run.replace(/[ -]/g, '');
    return cardShaped(digits) ? maskCard(digits) : run;
  });
}

/**
 * Masks card numbers typed into free text (a name, an order number, a refund reason): every card-shaped run
 * of 12 to 19 digits becomes first 6, `***`, last 4, so the text can be stored, logged and notified. The
 * Luhn check alone passes one number in ten: an order number built from a time stamp was masked one order in
 * ten, and its answer and notifications no longer named the merchant's order.
 *
 * A run inside a UUID is kept: digit groups of a UUID joined across its dashes (`...-a631-968875783f8f`)
 * formed a card-shaped run in about one `ORD-<uuid>` order number in 600, and that order was answered under
 * a number the merchant never sent.
 */
export function maskCardNumbers(text: string): string {
  return maskRuns(text, { uuids: true, hexGlued: false });
}

/**
 * Masks card numbers in a merchant's identifier (order_no, shopper_id, productId): as in free text, except
 * that a run touching a hexadecimal letter is part of a hexadecimal identifier. A database id or a hash
 * (`5f1d7a9c41111111111111ab`, an MD5 or SHA-1 text) held a card-shaped run glued to its letters in about
 * one order number in 500 to 1,000, which was then answered masked. In a person's text (a name, a note) a
 * card number glued to letters is still masked.
 */
export function maskIdentifier(text: string): string {
  return maskRuns(text, { uuids: true, hexGlued: true });
}

/**
 * The form in which a gateway before the UUID and identifier rules above stored `text`: every card-shaped
 * run masked, inside a UUID or a hexadecimal identifier too. A payment, a checkout and a notification made
 * then are indexed under that form, so a call that names such an order (a retry of it above all) looks for
 * this form when the text as masked now finds nothing. The rules now only keep runs the former rule masked,
 * and a mask's digits join no run, so the former form of the text as masked now is the former form of the
 * text as sent.
 */
export function formerMask(text: string): string {
  return maskRuns(text, { uuids: false, hexGlued: false });
}

/** `%XX` escapes decoded byte by byte as Latin-1 (digits, spaces and dashes are ASCII); a stray `%` is kept. */
function percentDecoded(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * Whether an address (a notify_url, return_url, website) holds a card-shaped number, as written or behind
 * percent escapes (`4111%201111...`). Such an address is refused, never masked: a masked address would no
 * longer lead where the merchant meant. The identifier rule applies (a run inside a UUID, or glued to a
 * hexadecimal letter as in a token or a hash, is part of that identifier), since addresses carry tokens.
 */
export function holdsCardNumber(text: string): boolean {
  if (maskIdentifier(text) !== text) return true;
  return text.includes('%') && maskIdentifier(percentDecoded(text)) !== percentDecoded(text);
}
