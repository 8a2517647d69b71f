import type { NextFunction, Request, Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { formerKeyPasses, type Account } from '../../core/records/directory.js';
import { invalidField } from '../../core/kernel/errors.js';
import { requestSignatureMatches } from '../../core/kernel/signing.js';
import { signedValuesFor } from './authenticate.js';
import { beginIdempotent, finishIdempotent, type StoredAnswer } from '../../core/idempotency/idempotency-key.js';
import { formerKeyedCallFingerprint, keyedCallFingerprint } from '../../core/kernel/fingerprint.js';

/** The account of a correctly signed request; anything else goes on to the route, which refuses it. */
function signedAccount(deps: CoreDeps, path: string, body: Record<string, unknown>): Account | undefined {
  const values = signedValuesFor(path, body);
  if (!values || typeof body.merchant_id !== 'string' || typeof body.account_id !== 'string') return undefined;
  const account = deps.merchants.find(body.merchant_id, body.account_id);
  if (!account) return undefined;
  const signedBy = (key: string) => requestSignatureMatches(body.encryption_data, values, key);
  if (!signedBy(account.sign_key) && !formerKeyPasses(account, deps.clock.now(), signedBy)) return undefined;
  return account;
}

/** What an Idempotency-Key may be: 1 to 255 printable ASCII characters (the OpenAPI document says the same). */
export const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** Answers worth replaying: not server failures, nor refusals that may pass on a later try. */
const keep = (status: number) => status < 500 && status !== 401 && status !== 403 && status !== 429;

/**
 * Optional Idempotency-Key on every POST /v1 call, per account: the first answer is kept 24 hours and
 * replayed byte for byte to a repeat with the same body; another body, or a repeat while the first runs, is 409.
 * Only signed requests take part, so nobody but the account can occupy its keys.
 */
export function idempotency(deps: CoreDeps) {
  const keyed = keyedCall(deps);
  // synchronous for a call without a key (no promise per call on the payment path)
  return (req: Request, res: Response, next: NextFunction): void | Promise<void> => {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || key === undefined) return next();
    return keyed(req, res, next, key, req.baseUrl + req.path);
  };
}

function keyedCall(deps: CoreDeps) {
  return async (req: Request, res: Response, next: NextFunction, key: string, path: string): Promise<void> => {
    if (!IDEMPOTENCY_KEY.test(key)) throw invalidField('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
    const body = req.body as Record<string, unknown>;
    const account = signedAccount(deps, path, body);
    if (!account) return next();
    // a signed caller's refusals (409 here) are signed too (http/render/refusal.ts)
    res.locals.account = account;
    // the card only as its masked number, never the security code or expiry (docs/security.md#card-data)
    const hash = keyedCallFingerprint(deps, path, body);
    const begun = await beginIdempotent(deps, account, key, hash, () => formerKeyedCallFingerprint(deps, path, body));
    if (begun.kind === 'replay') {
      res.status(begun.answer.status);
      if (begun.answer.content_type) res.setHeader('Content-Type', begun.answer.content_type);
      res.setHeader('Idempotent-Replayed', 'true');
      res.send(begun.answer.body);
      return;
    }
    const send = res.send.bind(res);
    let finished = false;
    res.send = ((payload: unknown) => {
      if (finished || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return send(payload);
      finished = true;
      const text = typeof payload === 'string' ? payload : payload.toString('utf8');
      const answer: StoredAnswer = { status: res.statusCode, content_type: String(res.getHeader('Content-Type') ?? ''), body: text };
      finishIdempotent(deps, account, key, hash, begun.version, keep(res.statusCode) ? answer : null)
        .catch((err: unknown) => deps.log.warn({ err: { message: (err as Error).message }, path }, 'could not keep the idempotent answer'))
        .finally(() => send(text));
      return res;
    }) as Response['send'];
    next();
  };
}
