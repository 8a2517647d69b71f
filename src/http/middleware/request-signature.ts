import type { NextFunction, Request, Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { verifyingKeys, type Account } from '../../core/records/directory.js';
import { authenticationFailed } from '../../core/kernel/errors.js';
import { strictSignatureExpiry, verifyRequestSignature } from '../../core/kernel/signing.js';
import { isSignedPath } from './authenticate.js';
import { rawBodyOf } from './body.js';
import { keyedCallFingerprint } from '../../core/kernel/fingerprint.js';
import { checkoutCall } from '../calls/payments.js';

/**
 * Strict signing (signature_mode "strict", docs/security.md): every merchant call of the account must
 * also carry `X-Signature: t=,v1=`, an HMAC over method, path, time and raw body, within 300 s of the
 * gateway's clock and accepted once (remembered until its t + 300 s has passed). docs/api.md#signatures's body signature is
 * still checked by the route.
 * The loading page's form post (checkout_token) and the hosted pages come from the shopper, not the merchant.
 */
export function strictSignature(deps: CoreDeps) {
  // synchronous for every call that is not a strict account's: no promise per call on the payment path
  return (req: Request, res: Response, next: NextFunction): void | Promise<void> => {
    const body = req.body as Record<string, unknown>;
    if (req.method !== 'POST' || !isSignedPath(req.path)) return next();
    if (req.path === checkoutCall.path && body.checkout_token !== undefined) return next();
    if (typeof body.merchant_id !== 'string' || typeof body.account_id !== 'string') return next();
    const account = deps.merchants.find(body.merchant_id, body.account_id);
    if (!account || account.signature_mode !== 'strict') return next();
    return checkStrict(deps, req, res, next, account);
  };
}

async function checkStrict(deps: CoreDeps, req: Request, res: Response, next: NextFunction, account: Account): Promise<void> {
  const now = deps.clock.now();
  const nowSeconds = Math.floor(now / 1000);
  // the newest key first; an older one in its overlap only when the newest does not verify
  let check = verifyRequestSignature(req.get('x-signature'), account.sign_key, nowSeconds, req.method, req.path, rawBodyOf(res));
  for (const key of check.ok ? [] : verifyingKeys(account, now).slice(1)) {
    const again = verifyRequestSignature(req.get('x-signature'), key, nowSeconds, req.method, req.path, rawBodyOf(res));
    if (again.ok) {
      check = again;
      break;
    }
  }
  let reason = check.ok ? '' : check.reason;
  // remembered for as long as its t lets it pass: a signature dated ahead outlives a fixed span from first use
  const ttlMs = check.ok ? Math.max(1, strictSignatureExpiry(check.t) - now) : 0;
  // the mark of an accepted signature names the request as the fingerprints see it (its time, method and path,
  // its fields without the security code or expiry), never the MAC: that covers the raw body, security code
  // included, and nothing derived from the security code is written (docs/security.md#card-data)
  const mark = check.ok ? keyedCallFingerprint(deps, `${check.t} ${req.method} ${req.path}`, req.body as Record<string, unknown>) : '';
  if (check.ok && !(await deps.store.acceptOnce(account.merchant_id, account.account_id, mark, ttlMs)))
    reason = 'X-Signature was already accepted once (a replay)';
  if (reason) {
    deps.log.info({ request_id: res.locals.requestId, merchant_id: account.merchant_id, reason }, 'strict signature refused');
    throw authenticationFailed();
  }
  next();
}
