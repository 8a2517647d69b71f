import type { Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import { PaymentStatus as S, type Payment } from '../../core/records/payment.js';
import { resultRedirect, type ShopperResult } from '../../core/checkout/result.js';
import { parseAmount } from '../../core/kernel/money.js';
import { CHALLENGE_ABANDONED } from '../../core/authorisation/challenge-expiry.js';
import { SANDBOX_CODE_REFUSED } from '../../connectors/sandbox/sandbox.js';
import { formatAmount, t } from '../../i18n/index.js';
import { displayName, preparePage } from './pages.js';

export type Outcome = 'approved' | 'pending' | 'declined' | 'threeds_failed' | 'cancelled';

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
      // the shopper's own cancel is worded as theirs, never as the bank's failure to confirm
      return p.threeds.result === CHALLENGE_ABANDONED.threedsResult ? 'cancelled' : 'threeds_failed';
    default:
      return 'declined';
  }
}

/**
 * The shopper typed a code on the gateway's own challenge page (the sandbox issuer's: an acquirer's challenge
 * runs on its own page, acquirer_url) and it was not the code: the page says so rather than blaming the bank.
 */
function codeWasWrong(p: Payment | undefined): boolean {
  return p !== undefined && p.threeds.result === SANDBOX_CODE_REFUSED && !p.threeds.acquirer_url;
}

export interface ResultPageOptions {
  payment?: Payment;
  outcome?: Outcome;
  /** the merchant's address the shopper goes on to (with the signed result); empty: stay here */
  redirectTo: string;
  /** where the result is posted when the page is framed */
  parentOrigin: string | undefined;
  /** the shopper's language (pages.ts shopperLang) */
  lang: string;
  /**
   * the card page, when the session takes another card after this decline: the page offers it first and
   * sends nobody anywhere by itself (the merchant gets the final result once; "return" still carries this one)
   */
  retryUrl?: string;
}

/**
 * The result page: public/result.js sends the shopper on to the merchant with the signed result and, inside
 * an iFrame, posts the same result to the parent window (its origin only). A link does it without script.
 */
export function renderResult(deps: CoreDeps, res: Response, account: Account, result: ShopperResult, o: ResultPageOptions): void {
  const outcome = o.outcome ?? (o.payment ? outcomeOf(o.payment) : 'pending');
  const lang = o.lang;
  preparePage(res, deps, account, lang);
  res.render('result', {
    outcome,
    heading: t(lang, `result.${outcome}`),
    detail: t(
      lang,
      outcome === 'threeds_failed' && codeWasWrong(o.payment) ? 'result.threeds_code_wrong_detail' : `result.${outcome}_detail`,
    ),
    merchantName: displayName(account),
    amount: formatAmount(lang, parseAmount(result.amount) ?? 0, result.currency),
    result,
    resultJson: JSON.stringify(result),
    redirectUrl: o.redirectTo ? resultRedirect(o.redirectTo, result) : '',
    retryUrl: o.retryUrl ?? '',
    parentOrigin: o.parentOrigin ?? '',
  });
}
