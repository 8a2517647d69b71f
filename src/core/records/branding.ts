import { z } from 'zod';

/** WCAG 2.x relative luminance of an sRGB colour written `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (i: number): number => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The hosted pages' button text is white: an accent must reach WCAG AA (4.5:1) against it. */
export const BUTTON_TEXT = '#ffffff';
export const MIN_CONTRAST = 4.5;

/** Logo files the gateway serves for an account, by extension. */
export const LOGO_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** An account's look on the hosted pages; every part optional. */
export const brandingSchema = z.object({
  /** shown instead of the merchant's name */
  display_name: z.string().trim().min(1).max(64).optional(),
  accent_color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour written #rrggbb')
    .refine((c) => contrastRatio(c, BUTTON_TEXT) >= MIN_CONTRAST, 'needs a contrast of at least 4.5:1 against the white button text')
    .optional(),
  /** a PNG, JPEG, WebP or SVG file (at most 256 KB), relative to the merchants file; the gateway serves it */
  logo_file: z
    .string()
    .min(1)
    .refine((f) => (f.split('.').pop() ?? '').toLowerCase() in LOGO_TYPES, 'must end in .png, .jpg, .jpeg, .webp or .svg')
    .optional(),
});
export type Branding = z.infer<typeof brandingSchema>;

/** Card brands the gateway recognises (kernel/cards.ts cardBrand) that an account may accept. */
export const CARD_BRANDS = ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'DINERS', 'JCB', 'UNIONPAY', 'MAESTRO'] as const;
export type CardBrandCode = (typeof CARD_BRANDS)[number];

/** What the shopper reads for a brand (a name, never translated). */
export const BRAND_NAMES: Record<CardBrandCode, string> = {
  VISA: 'Visa',
  MASTERCARD: 'Mastercard',
  AMEX: 'American Express',
  DISCOVER: 'Discover',
  DINERS: 'Diners Club',
  JCB: 'JCB',
  UNIONPAY: 'UnionPay',
  MAESTRO: 'Maestro',
};

/** The brands an account accepts: its `card_brands`, or every brand when it lists none. */
export function acceptedBrands(cardBrands: readonly string[]): CardBrandCode[] {
  return cardBrands.length > 0 ? CARD_BRANDS.filter((b) => cardBrands.includes(b)) : [...CARD_BRANDS];
}

/** Digits of the security code for a brand: 4 on the front of an American Express card, else 3. */
export function securityCodeLength(brand: string): number {
  return brand === 'AMEX' ? 4 : 3;
}
