import type { Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/merchants/directory.js';
import { PaymentStatus as S, type Payment } from '../../core/payments/payment.js';
import { resultRedirect, type ShopperResult } from '../../core/checkout/result.js';
import { hostedPageHeaders } from './pages.js';

export type Outcome = 'approved' | 'pending' | 'declined' | 'threeds_failed' | 'cancelled';

const HEADINGS: Record<Outcome, string> = {
  approved: 'Payment successful',
  pending: 'Payment received, pending confirmation',
  declined: 'Payment declined',
  threeds_failed: '3-D Secure authentication failed',
  cancelled: 'Payment cancelled',
};

export function outcomeOf(p: Payment): Outcome {
  switch (p.status) {
    case S.AUTHORISED:
    case S.CAPTURED:
    case S.PARTLY_REFUNDED:
    case S.REFUNDED:
      return 'approved';
    case S.PENDING:
    case S.HELD:
      return 'pending';
    case S.THREEDS_FAILED:
      return 'threeds_failed';
    default:
      return 'declined';
  }
}

export interface ResultPageOptions {
  payment?: Payment;
  outcome?: Outcome;
  /** the merchant's address the shopper goes on to (with the signed result); empty: stay here */
  redirectTo: string;
  /** where the result is posted when the page is framed */
  parentOrigin: string | undefined;
}

/**
 * The result page: public/result.js sends the shopper on to the merchant with the signed result and, inside
 * an iFrame, posts the same result to the parent window (its origin only). A link does it without script.
 */
export function renderResult(deps: CoreDeps, res: Response, account: Account, result: ShopperResult, o: ResultPageOptions): void {
  const outcome = o.outcome ?? (o.payment ? outcomeOf(o.payment) : 'pending');
  hostedPageHeaders(res, deps.baseUrl, account);
  res.render('result', {
    baseUrl: deps.baseUrl,
    outcome,
    heading: HEADINGS[outcome],
    detail: result.result_info.replace(/^\d+:/, ''),
    merchantName: account.merchant_name,
    result,
    resultJson: JSON.stringify(result),
    redirectUrl: o.redirectTo ? resultRedirect(o.redirectTo, result) : '',
    parentOrigin: o.parentOrigin ?? '',
  });
}
