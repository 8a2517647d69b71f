import type { Clock, IdGenerator } from '../kernel/clock.js';
import type { ConnectorRegistry } from './card-connector.js';
import type { WebhookAcquirer } from './acquirer-webhooks.js';
import type { PayoutConnector } from './payout-connector.js';
import type { RateTable } from '../records/fx.js';
import type { MerchantDirectory } from '../records/directory.js';
import type { MerchantRecord } from '../records/merchant-record.js';
import type { GatewayStore } from './store.js';
import type { CardVault } from '../records/vault.js';
import type { NotificationTransport } from './transport.js';
import type { GatewayMetrics } from './metrics.js';

/** The part of a logger the core uses (pino satisfies it). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** An operator's key: its id (named in the audit) and its secret (the bearer token). */
export interface OperatorKey {
  id: string;
  secret: string;
}

/** What the operators' calls need of the live merchant directory (core/merchants/registry.ts). */
export interface OperatorsPort {
  /** OPERATOR_KEYS: who may call /admin (empty: /admin is not served) */
  keys: readonly OperatorKey[];
  /** the store's registry was seeded from the merchants file and read (once; later calls wait for the same) */
  ready(): Promise<void>;
  /** reads the directory again now, as after this process's own change */
  refresh(): Promise<void>;
  /** every merchant's record as last read */
  records(): MerchantRecord[];
  /** follows other processes' changes (announcements and a version check on a timer) */
  follow(): void;
  stop(): void;
}

/** Everything the core needs, passed in: no module reaches for a global. */
export interface CoreDeps {
  store: GatewayStore;
  clock: Clock;
  /**
   * The live clock where `clock` is a test clock's (clock-deps.ts): what outlives the clock's time, such as a
   * notification's X-Signature `t` (a receiver's replay window is in real time). Absent: `clock` is the live one.
   */
  liveClock?: Clock;
  ids: IdGenerator;
  vault: CardVault;
  connectors: ConnectorRegistry;
  /**
   * The acquirers whose webhooks the gateway takes, by code (compose.ts registers each connector of
   * src/connectors that has them); absent where a test builds the core without them
   */
  acquirers?: ReadonlyMap<string, WebhookAcquirer>;
  /** the bank-transfer provider that sends payouts */
  payoutConnector: PayoutConnector;
  /** exchange rates for payouts (FX_RATES_FILE or the built-in table) */
  fxRates: RateTable;
  merchants: MerchantDirectory;
  /** the operators' side of the merchant directory (docs/operators.md); absent where a test builds the core without it */
  operators?: OperatorsPort;
  baseUrl: string;
  timezone: string;
  log: Logger;
  /** NOTIFY_ALLOW_PRIVATE: notify_url may point at loopback/private addresses (tests, local development) */
  notifyAllowPrivate: boolean;
  /** AUTH_FAILURES_PER_MINUTE: failed authentications a client address may make a minute (0: no limit) */
  authFailuresPerMinute: number;
  /** PENDING_RESOLVE_SECONDS: a claim older than this is resumed by recovery (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery) */
  pendingResolveMs: number;
  /** RECONCILE_DAYS in ms: how far back reconciliation looks (0: off; absent: the default 7 days) */
  reconcileWindowMs?: number;
  /** sends notifications (and resolves their hosts) */
  transport: NotificationTransport;
  /** what happened, for the operator's metrics (noMetrics when METRICS_ALLOW=off) */
  metrics: GatewayMetrics;
}
