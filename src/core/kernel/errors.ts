/**
 * Typed domain errors with stable codes. Only http/error-handler.ts turns them into a status and a body;
 * business failures (declines, over-refunds) are results, never these errors.
 */
export const ERROR_CODES = {
  INVALID_BODY: 400,
  INVALID_FIELD: 400,
  MISSING_FIELD: 400,
  AUTHENTICATION_FAILED: 401,
  /** /admin: a missing or wrong operator key (one answer for both) */
  OPERATOR_KEY_INVALID: 401,
  IP_NOT_ALLOWED: 403,
  /** a portal user may not do this (a viewer acting, another merchant's record) */
  PORTAL_FORBIDDEN: 403,
  /** a portal form without its session's CSRF token */
  CSRF_FAILED: 403,
  /** the merchant is suspended by its operator: no new payment, payout or checkout starts */
  MERCHANT_SUSPENDED: 403,
  NOT_FOUND: 404,
  NOTIFICATION_NOT_FOUND: 404,
  ORDER_CONFLICT: 409,
  IDEMPOTENCY_CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  PAYOUT_CONFLICT: 409,
  /** /admin: the merchant, account or portal user to create exists already */
  ALREADY_EXISTS: 409,
  /** /admin: the merchant changed at the same moment in another call; nothing was written */
  MERCHANT_CHANGED: 409,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INSUFFICIENT_BALANCE: 422,
  RATE_LIMITED: 429,
  LOGIN_THROTTLED: 429,
  STORE_UNAVAILABLE: 503,
  /**
   * a change the store may have applied but its replicas did not confirm in time (REDIS_MIN_REPLICAS): its
   * outcome is not known, as a commit whose answer was lost; reading it back answers the same until confirmed
   */
  STORE_UNCONFIRMED: 503,
  /** the acquirer was asked and its answer is not known yet: the payment stays claimed and recovery settles it */
  OUTCOME_UNKNOWN: 503,
  /** the gateway has more such work waiting than it takes (large bodies to read): nothing was done; try again */
  OVERLOADED: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** the request field at fault, when there is one */
    readonly field?: string,
    /** seconds to wait before retrying (429) */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  get status(): number {
    return ERROR_CODES[this.code];
  }
}

export const invalidField = (field: string, message: string): GatewayError =>
  new GatewayError('INVALID_FIELD', `${field}: ${message}`, field);

export const missingField = (field: string): GatewayError => new GatewayError('MISSING_FIELD', `${field}: is required`, field);

/** One message for a bad signature, an unknown merchant and an unknown account: nothing to probe. */
export const authenticationFailed = (): GatewayError =>
  new GatewayError('AUTHENTICATION_FAILED', 'merchant_id, account_id or encryption_data is not valid');
