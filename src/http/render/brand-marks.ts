import type { CardBrandCode } from '../../core/records/branding.js';

/**
 * The card page's brand marks: small inline SVGs drawn for this project (simple shapes and wordmarks, no
 * third-party logo files), 40 x 26, each on its own card-shaped ground so it reads in light and dark alike.
 * Decorative (aria-hidden): the list item carries the brand's name as text. Drawn left to right on right-to-left
 * pages too (direction). Built once, at import.
 */
const card = (ground: string, body: string): string =>
  `<svg class="mark-svg" viewBox="0 0 40 26" width="40" height="26" direction="ltr" aria-hidden="true" focusable="false">` +
  `<rect x="0.5" y="0.5" width="39" height="25" rx="4" fill="${ground}" stroke="#c9cfdd"/>${body}</svg>`;

const word = (text: string, fill: string, size: number, extra = ''): string =>
  `<text x="20" y="17.2" text-anchor="middle" font-family="Arial, Helvetica, sans-serif" font-size="${size}" font-weight="700" fill="${fill}"${extra}>${text}</text>`;

export const BRAND_MARKS: Readonly<Record<CardBrandCode, string>> = {
  VISA: card(
    '#1a1f71',
    word('VISA', '#ffffff', 11, ' font-style="italic" letter-spacing="0.5"') + '<path d="M7 20.5h26" stroke="#f7b600" stroke-width="1.6"/>',
  ),
  MASTERCARD: card(
    '#ffffff',
    '<circle cx="16" cy="13" r="7.5" fill="#eb001b"/><circle cx="24" cy="13" r="7.5" fill="#f79e1b"/>' +
      '<path d="M20 6.8a7.5 7.5 0 0 1 0 12.4a7.5 7.5 0 0 1 0-12.4z" fill="#ff5f00"/>',
  ),
  AMEX: card(
    '#1f72cd',
    '<rect x="4" y="7" width="32" height="12" rx="1.5" fill="none" stroke="#ffffff" stroke-width="1"/>' + word('AMEX', '#ffffff', 9.5),
  ),
  DISCOVER: card(
    '#ffffff',
    '<text x="4" y="16.4" font-family="Arial, Helvetica, sans-serif" font-size="7.4" font-weight="700" fill="#231f20">DISC</text>' +
      '<circle cx="26.4" cy="13.6" r="3.6" fill="#f47216"/>' +
      '<text x="30.6" y="16.4" font-family="Arial, Helvetica, sans-serif" font-size="7.4" font-weight="700" fill="#231f20">V</text>' +
      '<path d="M22 26h17.5v-6z" fill="#f47216"/>',
  ),
  DINERS: card(
    '#ffffff',
    '<circle cx="20" cy="13" r="8" fill="none" stroke="#0069aa" stroke-width="2.2"/>' +
      '<path d="M17.2 8.6v8.8M22.8 8.6v8.8" stroke="#0069aa" stroke-width="2"/>',
  ),
  JCB: card(
    '#ffffff',
    '<rect x="6" y="5" width="9" height="16" rx="3" fill="#0e4c96"/><rect x="15.5" y="5" width="9" height="16" rx="3" fill="#d71e28"/>' +
      '<rect x="25" y="5" width="9" height="16" rx="3" fill="#128a3b"/>' +
      '<text x="20" y="16" text-anchor="middle" font-family="Arial, Helvetica, sans-serif" font-size="7.5" font-weight="700" fill="#ffffff" letter-spacing="4.2">JCB</text>',
  ),
  UNIONPAY: card(
    '#ffffff',
    '<path d="M7 5h8l-3 16H4z" fill="#d71e28"/><path d="M15 5h8l-3 16h-8z" fill="#0e4c96"/><path d="M23 5h9l-3 16h-9z" fill="#00797b"/>' +
      '<text x="20" y="16.2" text-anchor="middle" font-family="Arial, Helvetica, sans-serif" font-size="7" font-weight="700" fill="#ffffff">UP</text>',
  ),
  MAESTRO: card(
    '#ffffff',
    '<circle cx="16" cy="13" r="7.5" fill="#0099df"/><circle cx="24" cy="13" r="7.5" fill="#e3001b"/>' +
      '<path d="M20 6.8a7.5 7.5 0 0 1 0 12.4a7.5 7.5 0 0 1 0-12.4z" fill="#6c6bbd"/>',
  ),
};
