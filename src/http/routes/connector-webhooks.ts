import express, { Router, type Request, type Response } from 'express';
import type { Types } from '@adyen/api-library';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/merchants/directory.js';
import { GatewayError } from '../../core/kernel/errors.js';
import { applyAcquirerEvent, type AcquirerEvent, type EventResult } from '../../core/connectors/acquirer-events.js';
import { StripeConnector } from '../../core/connectors/stripe/connector.js';
import { stripeEvent } from '../../core/connectors/stripe/events.js';
import { stripeEventProblem } from '../../core/connectors/stripe/event-shape.js';
import { AdyenConnector } from '../../core/connectors/adyen/connector.js';
import { adyenEvent } from '../../core/connectors/adyen/events.js';
import { adyenItemProblem } from '../../core/connectors/adyen/event-shape.js';

/** The acquirers' own webhook bodies are read raw: their signatures cover the bytes as sent. */
const rawBody = express.raw({ type: () => true, limit: '512kb' });

/** A webhook that is not the acquirer's, or not for this address: the gateway's 400 error body, naming the field. */
const refused = (message: string, field = 'signature'): never => {
  throw new GatewayError('INVALID_FIELD', message, field);
};

type Code = 'stripe' | 'adyen';
const NAMES: Record<Code, string> = { stripe: 'Stripe', adyen: 'Adyen' };

/**
 * The one account a webhook address is for, found without checking any signature: the address names it
 * (`/connectors/<code>/webhook/<account_id>`, or with its merchant where two merchants have the same account_id
 * on this connector), or the shared address `/connectors/<code>/webhook` serves the connector's only account.
 * Anything else is refused before any secret is tried, so a stranger's post costs one signature check at most.
 */
function accountOf(deps: CoreDeps, code: Code, params: Record<string, string | undefined>): Account {
  const on = deps.merchants.all().filter((a) => a.routing.connector_code === code);
  const name = NAMES[code];
  if (params.account_id === undefined) {
    if (on.length === 1) return on[0]!;
    return refused(
      on.length === 0
        ? `no account of this gateway is routed to ${name}`
        : `this gateway has ${on.length} ${name} accounts: each has its own webhook address, /connectors/${code}/webhook/<account_id>`,
      'account_id',
    );
  }
  const named = on.filter(
    (a) => a.account_id === params.account_id && (params.merchant_id === undefined || a.merchant_id === params.merchant_id),
  );
  if (named.length === 1) return named[0]!;
  return refused(
    named.length === 0
      ? `account_id: no ${name} account ${params.account_id} at this gateway`
      : `account_id: ${named.length} merchants have a ${name} account ${params.account_id}: use /connectors/${code}/webhook/<merchant_id>/<account_id>`,
    'account_id',
  );
}

/** The account's own connector instance (its secrets, its journal). */
function connectorOf<C>(deps: CoreDeps, account: Account, kind: abstract new (...args: never[]) => C): C {
  const connector = deps.connectors.get(account.routing.connector_code, account);
  if (!(connector instanceof kind))
    throw new GatewayError('INTERNAL', `account ${account.account_id} has no ${account.routing.connector_code} connector`);
  return connector;
}

/** An acquirer's event mapped into the gateway's terms; a signed event that does not map is a 400, logged. */
function mapped<T>(
  deps: CoreDeps,
  account: Account,
  raw: T,
  problem: string | undefined,
  map: (raw: T) => AcquirerEvent,
  who: { id: string; type: string },
): AcquirerEvent {
  let event: AcquirerEvent | undefined;
  let why = problem;
  if (why === undefined) {
    try {
      event = map(raw);
    } catch (err) {
      why = (err as Error).message;
    }
  }
  if (event) return event;
  deps.log.warn(
    { merchant_id: account.merchant_id, account_id: account.account_id, event_id: who.id, event_type: who.type, reason: why },
    'acquirer event signed but not understood: refused',
  );
  return refused(`event: ${who.type} ${who.id} is not an event the gateway can read (${why})`, 'event');
}

const PATHS = (code: Code) => [
  `/connectors/${code}/webhook`,
  `/connectors/${code}/webhook/:account_id`,
  `/connectors/${code}/webhook/:merchant_id/:account_id`,
];

/**
 * POST /connectors/stripe/webhook[/<account_id>] and /connectors/adyen/webhook[/<account_id>] (docs/connectors.md):
 * each address is one account's, verified with that account's secret only, by the SDKs' own checks (Stripe's
 * constructEvent, Adyen's HmacValidator). A bad signature, an address that names no account, or a signed event
 * the gateway cannot read is 400; an event already applied, of a type the gateway does not use, or naming no
 * payment of the account is acknowledged and changes nothing.
 */
export function connectorWebhooksRouter(deps: CoreDeps): Router {
  const router = Router();
  // a webhook whose signature is missing or not the account's: counted (a wrong secret after a rotation, or a
  // forgery: docs/deployment.md, "Monitoring"), then refused
  const unsigned = (connector: string, message: string): never => {
    deps.metrics.webhookRefused?.(connector);
    return refused(message);
  };
  // the address's account, found before the body is read: a post to no account's address costs nothing more
  const addressed =
    (code: Code) =>
    (req: Request, res: Response, next: (err?: unknown) => void): void => {
      try {
        res.locals.webhookAccount = accountOf(deps, code, req.params as Record<string, string | undefined>);
        next();
      } catch (err) {
        next(err);
      }
    };

  router.post(PATHS('stripe'), addressed('stripe'), rawBody, async (req: Request, res: Response) => {
    const account = res.locals.webhookAccount as Account;
    const signature = req.get('stripe-signature');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!signature) return unsigned('stripe', 'Stripe-Signature: the header is missing');
    const connector = connectorOf(deps, account, StripeConnector);
    const verified = connector.verifyEvent(body, signature);
    if (!verified) return unsigned('stripe', 'Stripe-Signature: does not match this account’s webhook secret (or is older than 300 s)');
    const who = { id: String(verified.id), type: String(verified.type) };
    const event = mapped(deps, account, verified, stripeEventProblem(verified), stripeEvent, who);
    const result = await applyAcquirerEvent(deps, account, connector.journal, event);
    res.locals.outcome = { event_id: who.id, event_type: who.type, result };
    res.status(200).type('text/plain').send(result);
  });

  router.post(PATHS('adyen'), addressed('adyen'), rawBody, async (req: Request, res: Response) => {
    const account = res.locals.webhookAccount as Account;
    let items: Types.notification.NotificationRequestItem[];
    try {
      const parsed = JSON.parse((Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)).toString('utf8')) as {
        notificationItems?: { NotificationRequestItem?: Types.notification.NotificationRequestItem }[];
      };
      if (!Array.isArray(parsed?.notificationItems)) throw new Error('no notificationItems');
      items = parsed.notificationItems
        .map((i) => i?.NotificationRequestItem)
        .filter((i): i is Types.notification.NotificationRequestItem => Boolean(i) && typeof i === 'object');
    } catch {
      return refused('body: is not an Adyen notification (JSON)');
    }
    if (items.length === 0) return refused('notificationItems: the notification has no items');
    const connector = connectorOf(deps, account, AdyenConnector);
    // every item must be signed by this account's HMAC key before any is applied
    if (items.some((item) => !connector.verifyNotification(item)))
      return unsigned(
        'adyen',
        'hmacSignature: an item’s signature does not match this account’s HMAC key (or names another merchant account)',
      );
    const events = items.map((item) =>
      mapped(deps, account, item, adyenItemProblem(item), adyenEvent, { id: String(item.pspReference), type: String(item.eventCode) }),
    );
    const results: EventResult[] = [];
    for (const event of events) results.push(await applyAcquirerEvent(deps, account, connector.journal, event));
    res.locals.outcome = { events: items.length, result: results.join(',') };
    // Adyen's documented acknowledgement
    res.status(200).type('text/plain').send('[accepted]');
  });

  return router;
}
