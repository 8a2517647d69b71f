import { Router, type NextFunction, type Request, type Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { CoreDeps, OperatorKey } from '../../core/ports/deps.js';
import { GatewayError } from '../../core/kernel/errors.js';
import {
  addAccount,
  auditOf,
  createMerchant,
  getMerchant,
  invitePortalUser,
  removePortalUser,
  rotateSignKey,
  updateAccount,
  updateMerchant,
} from '../../core/merchants/operators.js';
import {
  ACCOUNT_PARAM,
  MERCHANT_PARAM,
  accountInputSchema,
  auditQuerySchema,
  createMerchantSchema,
  parseAdmin,
  portalUserSchema,
  rotateSchema,
  updateMerchantSchema,
} from '../schemas/operators.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The operator key a bearer token is, or undefined. Every key is compared, each in constant time over fixed
 * length digests, so a wrong key and a missing one take about the same time and say nothing of the secrets.
 */
function operatorOf(keys: readonly OperatorKey[], header: string | undefined): OperatorKey | undefined {
  const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
  const given = digest(token);
  let found: OperatorKey | undefined;
  for (const k of keys) if (timingSafeEqual(given, digest(k.secret)) && token !== '') found = k;
  return found;
}

function param(req: Request, name: string, pattern: RegExp): string {
  const value = String(req.params[name] ?? '');
  if (!pattern.test(value)) throw new GatewayError('NOT_FOUND', `${name}: no such ${name.replace('_id', '')}`, name);
  return value;
}

/**
 * The operators' API under /admin/v1 (docs/operators.md): merchants, accounts, sign keys, status, portal
 * users and the audit. Not served at all while OPERATOR_KEYS is unset.
 */
export function adminRouter(deps: CoreDeps): Router {
  const router = Router();
  const keys = deps.operators?.keys ?? [];
  if (keys.length === 0) return router;
  router.use('/admin', (req: Request, res: Response, next: NextFunction) => {
    const operator = operatorOf(keys, req.get('authorization'));
    if (!operator) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return next(new GatewayError('OPERATOR_KEY_INVALID', 'Authorization: a valid operator key is required (Bearer <secret>)'));
    }
    res.locals.operator = operator.id;
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  const op = (res: Response): string => String(res.locals.operator);
  const merchantOf = (req: Request) => param(req, 'merchant_id', MERCHANT_PARAM);
  const accountOf = (req: Request) => param(req, 'account_id', ACCOUNT_PARAM);

  router.post('/admin/v1/merchants', async (req, res) => {
    const input = parseAdmin(createMerchantSchema, req.body);
    res.status(201).json(await createMerchant(deps, op(res), input));
  });
  router.get('/admin/v1/merchants/:merchant_id', async (req, res) => {
    res.json(await getMerchant(deps, merchantOf(req)));
  });
  router.patch('/admin/v1/merchants/:merchant_id', async (req, res) => {
    const m = merchantOf(req);
    res.json(await updateMerchant(deps, op(res), m, parseAdmin(updateMerchantSchema, req.body)));
  });
  router.post('/admin/v1/merchants/:merchant_id/accounts', async (req, res) => {
    const m = merchantOf(req);
    res.status(201).json(await addAccount(deps, op(res), m, parseAdmin(accountInputSchema, req.body)));
  });
  router.patch('/admin/v1/merchants/:merchant_id/accounts/:account_id', async (req, res) => {
    const m = merchantOf(req);
    const a = accountOf(req);
    res.json(await updateAccount(deps, op(res), m, a, parseAdmin(accountInputSchema, req.body)));
  });
  router.post('/admin/v1/merchants/:merchant_id/accounts/:account_id/sign-keys', async (req, res) => {
    const m = merchantOf(req);
    const a = accountOf(req);
    const input = parseAdmin(rotateSchema, req.body);
    res.status(201).json(await rotateSignKey(deps, op(res), m, a, input.previous_expires_in_seconds));
  });
  router.post('/admin/v1/merchants/:merchant_id/portal-users', async (req, res) => {
    const m = merchantOf(req);
    res.status(201).json(await invitePortalUser(deps, op(res), m, parseAdmin(portalUserSchema, req.body)));
  });
  router.delete('/admin/v1/merchants/:merchant_id/portal-users/:email', async (req, res) => {
    const m = merchantOf(req);
    await removePortalUser(deps, op(res), m, String(req.params.email ?? ''));
    res.status(204).end();
  });
  router.get('/admin/v1/audit', async (req, res) => {
    const q = parseAdmin(auditQuerySchema, req.query);
    res.json({ audit: await auditOf(deps, q.merchant_id, q.limit) });
  });
  return router;
}
