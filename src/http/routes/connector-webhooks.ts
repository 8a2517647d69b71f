import express, { Router, type Request, type Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import type { AcquirerEvent, VerifiedEvent, WebhookAcquirer } from '../../core/ports/acquirer-webhooks.js';
import { GatewayError } from '../../core/kernel/errors.js';
import { applyAcquirerEvent, type EventResult } from '../../core/acquirers/acquirer-events.js';
import { accountJournal } from '../../core/acquirers/journal.js';

/** The acquirers' own webhook bodies are read raw: their signatures cover the bytes as sent. */
const rawBody = express.raw({ type: () => true, limit: '512kb' });

/** A webhook that is not the acquirer's, or not for this address: the gateway's 400 error body, naming the field. */
const refused = (message: string, field = 'signature'): never => {
  throw new GatewayError('INVALID_FIELD', message, field);
};

/**
 * The one account a webhook address is for, found without checking any signature: the address names it
 * (`/connectors/<code>/webhook/<account_id>`, or with its merchant where two merchants have the same account_id
 * on this connector), or the shared address `/connectors/<code>/webhook` serves the connector's only account.
 * Anything else is refused before any secret is tried, so a stranger's post costs one signature check at most.
 */
function accountOf(deps: CoreDeps, acquirer: WebhookAcquirer, params: Record<string, string | undefined>): Account {
  const { code, displayName: name } = acquirer;
  const on = deps.merchants.all().filter((a) => a.routing.connector_code === code);
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

/** An acquirer's event mapped into the gateway's terms; a signed event that does not map is a 400, logged. */
function mapped(deps: CoreDeps, account: Account, verified: VerifiedEvent): AcquirerEvent {
  let event: AcquirerEvent | undefined;
  let why = verified.problem;
  if (why === undefined) {
    try {
      event = verified.read();
    } catch (err) {
      why = (err as Error).message;
    }
  }
  if (event) return event;
  deps.log.warn(
    { merchant_id: account.merchant_id, account_id: account.account_id, event_id: verified.id, event_type: verified.type, reason: why },
    'acquirer event signed but not understood: refused',
  );
  return refused(`event: ${verified.type} ${verified.id} is not an event the gateway can read (${why})`, 'event');
}

/** An acquirer's webhook addresses: the shared one, one account's, and one merchant's account. */
const pathsOf = (code: string) => [
  `/connectors/${code}/webhook`,
  `/connectors/${code}/webhook/:account_id`,
  `/connectors/${code}/webhook/:merchant_id/:account_id`,
];
/**
 * POST /connectors/<code>/webhook[/<account_id>] (docs/connectors.md) for each acquirer registered in
 * CoreDeps.acquirers (Stripe, Adyen): each address is one account's, verified with that account's secret only,
 * by its connector (the SDKs' own checks, which say why they refuse). A bad signature, an address that names no
 * account, or a signed event the gateway cannot read is 400; an event already applied, of a type the gateway
 * does not use, or naming no payment of the account is acknowledged and changes nothing.
 */
export function connectorWebhooksRouter(deps: CoreDeps): Router {
  const router = Router();
  // the address's account, found before the body is read: a post to no account's address costs nothing more
  const addressed =
    (acquirer: WebhookAcquirer) =>
    (req: Request, res: Response, next: (err?: unknown) => void): void => {
      try {
        res.locals.webhookAcquirer = acquirer;
        res.locals.webhookAccount = accountOf(deps, acquirer, req.params as Record<string, string | undefined>);
        next();
      } catch (err) {
        next(err);
      }
    };

  // one route per registered acquirer (its code in the path as text), so the route table and the OpenAPI
  // document name each acquirer's addresses; an unregistered code is no route (404)
  for (const acquirer of deps.acquirers?.values() ?? []) router.post(pathsOf(acquirer.code), addressed(acquirer), rawBody, receive);

  async function receive(req: Request, res: Response): Promise<void> {
    const acquirer = res.locals.webhookAcquirer as WebhookAcquirer;
    const account = res.locals.webhookAccount as Account;
    const webhooks = acquirer.webhooksOf(account);
    if (!webhooks) throw new GatewayError('INTERNAL', `account ${account.account_id} has no ${acquirer.code} connector`);
    const verified = webhooks.verify(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), (name) => req.get(name));
    if (!verified.ok) {
      const { reason, message } = verified.refusal;
      res.locals.outcome = { refused: reason };
      // a signature missing, stale or not the account's: counted (a wrong secret after a rotation, or a
      // forgery: docs/deployment.md, "Monitoring"), then refused
      if (reason !== 'malformed') deps.metrics.webhookRefused?.(acquirer.code);
      return refused(message);
    }
    // every event is read before any is applied
    const events = verified.events.map((v) => mapped(deps, account, v));
    const journal = accountJournal(deps.store, () => deps.clock.now(), account);
    const results: EventResult[] = [];
    for (const event of events) results.push(await applyAcquirerEvent(deps, account, journal, event));
    if (verified.acknowledgement === undefined) {
      const [one] = verified.events;
      res.locals.outcome = { event_id: one?.id, event_type: one?.type, result: results.join(',') };
      res.status(200).type('text/plain').send(results.join(','));
    } else {
      res.locals.outcome = { events: events.length, result: results.join(',') };
      res.status(200).type('text/plain').send(verified.acknowledgement);
    }
  }

  return router;
}
