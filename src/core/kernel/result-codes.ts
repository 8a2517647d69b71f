/**
 * The catalogue of result_info codes (docs/error-codes.md lists the same). `<code>:<text>` on the wire.
 */
export const RESULT = {
  SUCCESS: ['0000', 'Success'],
  PENDING_3DS: ['2001', 'Pending 3-D Secure authentication'],
  HELD_FOR_REVIEW: ['2002', 'Held for risk review'],
  PENDING: ['2003', 'Processing'],
  DECLINED: ['3001', 'Card declined'],
  INSUFFICIENT_FUNDS: ['3002', 'Insufficient funds'],
  EXPIRED_CARD: ['3003', 'Expired card'],
  THREEDS_FAILED: ['3004', '3-D Secure authentication failed'],
  RISK_REJECTED: ['3005', 'Rejected by risk control'],
  REVIEW_REJECTED: ['3006', 'Rejected on review'],
  CANCELLED: ['3007', 'Cancelled'],
  EXPIRED: ['3008', 'Authorisation expired'],
  SHOPPER_CANCELLED: ['3009', 'Cancelled by the shopper'],
  SUSPECTED_FRAUD: ['3010', 'Declined as suspected fraud'],
  CAPTURE_FAILED: ['3011', 'Capture failed at the acquirer'],
  CONNECTOR_ERROR: ['5001', 'Processing error at the connector'],
} as const satisfies Record<string, readonly [string, string]>;

export type ResultKey = keyof typeof RESULT;

export function resultInfo(key: ResultKey): string {
  const [code, text] = RESULT[key];
  return `${code}:${text}`;
}

const BY_CODE = new Map<string, string>(Object.values(RESULT).map(([c, t]) => [c, `${c}:${t}`]));

/** `<code>:<text>` for a stored result code. */
export function resultInfoOf(code: string): string {
  return BY_CODE.get(code) ?? `${code}:Unknown`;
}
