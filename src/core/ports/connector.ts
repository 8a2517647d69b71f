import type { CoreDeps } from './deps.js';
import type { Account } from '../records/directory.js';
import type { CardConnector } from './card-connector.js';
import { GatewayError } from '../kernel/errors.js';

/** The card connector an account's payments are routed to. */
export function connectorFor(deps: CoreDeps, account: Account): CardConnector {
  const connector = deps.connectors.get(account.routing.connector_code, account);
  if (!connector) throw new GatewayError('INTERNAL', `no connector ${account.routing.connector_code} for this account`);
  return connector;
}
