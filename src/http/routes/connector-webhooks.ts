import express, { Router, type Request, type Response } from 'express';
import type { Types } from '@adyen/api-library';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/merchants/directory.js';
import { GatewayError } from '../../core/kernel/errors.js';
import { applyAcquirerEventAsOwner, type EventAccount, type EventResult } from '../../core/connectors/acquirer-events.js';
import { StripeConnector } from '../../core/connectors/stripe/connector.js';
import { stripeEvent } from '../../core/connectors/stripe/events.js';
import { AdyenConnector } from '../../core/connectors/adyen/connector.js';
import { adyenEvent } from '../../core/connectors/adyen/events.js';

/** The acquirers' own webhook bodies are read raw: their signatures cover the bytes as sent. */
const rawBody = express.raw({ type: () => true, limit: '512kb' });

/** The accounts routed to `code`, each with its own connector (its secrets, its journal). */
function accountsOn<C>(deps: CoreDeps, code: string, kind: abstract new (...args: never[]) => C): { account: Account; connector: C }[] {
  const out: { account: Account; connector: C }[] = [];
  for (const account of deps.merchants.all()) {
    if (account.routing.connector_code !== code) continue;
    const connector = deps.connectors.get(code, account);
    if (connector instanceof kind) out.push({ account, connector });
  }
  return out;
}

/** A webhook that is not the acquirer's: the gateway's 400 error body, naming what did not verify. */
const refused = (message: string): never => {
  throw new GatewayError('INVALID_FIELD', message, 'signature');
};

/**
 * POST /connectors/stripe/webhook and /connectors/adyen/webhook (DESIGN 16): verified with the SDKs' own
 * checks against each account's secret (Stripe's constructEvent, Adyen's HmacValidator); a bad signature is
 * 400, an event already applied or of a type the gateway does not use is acknowledged and changes nothing.
 */
export function connectorWebhooksRouter(deps: CoreDeps): Router {
  const router = Router();

  router.post('/connectors/stripe/webhook', rawBody, async (req: Request, res: Response) => {
    const signature = req.get('stripe-signature');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!signature) return refused('Stripe-Signature: the header is missing');
    // every account whose secret verifies it: several may share one Stripe account's webhook secret
    let event: ReturnType<StripeConnector['verifyEvent']>;
    const verified: EventAccount[] = [];
    for (const { account, connector } of accountsOn(deps, 'stripe', StripeConnector)) {
      const checked = connector.verifyEvent(body, signature);
      if (!checked) continue;
      event ??= checked;
      verified.push({ account, journal: connector.journal });
    }
    if (!event) return refused('Stripe-Signature: matches no Stripe account’s webhook secret (or is older than 300 s)');
    const result = await applyAcquirerEventAsOwner(deps, verified, stripeEvent(event));
    res.locals.outcome = { event_id: event.id, event_type: event.type, result };
    res.status(200).type('text/plain').send(result);
  });

  router.post('/connectors/adyen/webhook', rawBody, async (req: Request, res: Response) => {
    let items: Types.notification.NotificationRequestItem[];
    try {
      const parsed = JSON.parse((Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)).toString('utf8')) as {
        notificationItems?: { NotificationRequestItem?: Types.notification.NotificationRequestItem }[];
      };
      items = (parsed.notificationItems ?? []).map((i) => i.NotificationRequestItem!).filter(Boolean);
    } catch {
      return refused('body: is not an Adyen notification (JSON)');
    }
    if (items.length === 0) return refused('notificationItems: the notification has no items');
    const accounts = accountsOn(deps, 'adyen', AdyenConnector);
    // every item must be signed by an account's HMAC key before any is applied (several accounts may share one)
    const signed = items.map((item) =>
      accounts
        .filter((a) => a.connector.verifyNotification(item))
        .map((a): EventAccount => ({ account: a.account, journal: a.connector.journal })),
    );
    if (signed.some((a) => a.length === 0)) return refused('hmacSignature: an item’s signature matches no Adyen account’s HMAC key');
    const results: EventResult[] = [];
    for (const [i, item] of items.entries()) results.push(await applyAcquirerEventAsOwner(deps, signed[i]!, adyenEvent(item)));
    res.locals.outcome = { events: items.length, result: results.join(',') };
    // Adyen's documented acknowledgement
    res.status(200).type('text/plain').send('[accepted]');
  });

  return router;
}
