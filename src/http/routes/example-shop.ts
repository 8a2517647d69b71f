import { assetTag, pageAssets } from '../render/assets.js';
import { t, type MessageKey } from '../../i18n/index.js';
import { Router } from 'express';
import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../../core/ports/deps.js';
import { REQUEST_SIGNATURE_FIELDS, RESPONSE_SIGNATURE_FIELDS, signFields, signatureMatches } from '../../core/kernel/signing.js';
import { checkoutCall } from '../calls/payments.js';

/**
 * Development only (NODE_ENV=development): a tiny merchant shop on the gateway's own origin, so a newcomer
 * can try the redirect and the iFrame flows with the demo account at {BASE_URL}/examples/shop. A real
 * merchant signs on its own server exactly like this, then forwards the loading page or mounts embed.js.
 */
export function exampleShopRouter(deps: CoreDeps): Router {
  const router = Router();
  const account = deps.merchants.all()[0]!;
  const shop = `${deps.baseUrl}/examples/shop`;

  const order = (): Record<string, unknown> => {
    const body: Record<string, unknown> = {
      merchant_id: account.merchant_id,
      account_id: account.account_id,
      order_no: `EX-${randomUUID().slice(0, 8)}`,
      currency: account.currencies[0] ?? 'USD',
      amount: '25.00',
      item_total: '25.00',
      items: 'Coffee beans#,#SKU-1#,#12.50#,#2',
      first_name: 'Ada',
      last_name: 'Lovelace',
      shopper_email: 'ada@example.com',
      open3d: 'do3DS',
      return_url: `${shop}/return`,
      cancel_url: `${shop}/return`,
    };
    return { ...body, encryption_data: signFields(body, REQUEST_SIGNATURE_FIELDS.checkout, account.sign_key) };
  };
  const checkout = (accept: string) =>
    fetch(`${deps.baseUrl}${checkoutCall.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(order()),
    });

  // the merchant's own page (not a hosted page): the shared head partial in English, without branding
  const assets = pageAssets(deps.merchants);
  router.use('/examples/shop', (_req, res, next) => {
    Object.assign(res.locals, {
      lang: 'en',
      dir: 'ltr',
      t: (k: MessageKey) => t('en', k),
      asset: (name: string) => assetTag(assets, deps.baseUrl, name),
      brandClass: '',
      logoUrl: '',
    });
    next();
  });
  router.get('/examples/shop', (_req, res) =>
    res.render('example-shop', { baseUrl: deps.baseUrl, mode: 'start', checkoutUrl: '', result: null }),
  );
  router.post('/examples/shop/redirect', async (_req, res) => {
    const answer = await checkout('text/html');
    res
      .status(answer.status)
      .type('html')
      .send(await answer.text());
  });
  router.post('/examples/shop/iframe', async (_req, res) => {
    const answer = (await (await checkout('application/json')).json()) as { checkout_url: string };
    res.render('example-shop', { baseUrl: deps.baseUrl, mode: 'iframe', checkoutUrl: answer.checkout_url, result: null });
  });
  router.get('/examples/shop/return', (req, res) => {
    const q = req.query as Record<string, string>;
    const expected = signFields(
      { merchant_id: account.merchant_id, account_id: account.account_id, ...q },
      RESPONSE_SIGNATURE_FIELDS.payment,
      account.sign_key,
    );
    res.render('example-shop', {
      baseUrl: deps.baseUrl,
      mode: 'return',
      checkoutUrl: '',
      result: { ...q, verified: signatureMatches(q.encryption_data, expected) },
    });
  });
  return router;
}
