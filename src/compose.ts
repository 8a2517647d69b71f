import { ConfigError, type Config } from './config.js';
import type { CoreDeps, Logger } from './core/ports/deps.js';
import { randomIds, systemClock, type Clock, type IdGenerator } from './core/kernel/clock.js';
import { connectorRegistry, type CardConnector, type ConnectorRegistry } from './core/ports/card-connector.js';
import { SandboxConnector } from './connectors/sandbox/sandbox.js';
import { SandboxPayoutConnector } from './connectors/sandbox/sandbox-payout.js';
import { AcquirerSettingsError, acquirerConnectors, webhookAcquirers, type AcquirerKind } from './connectors/acquirers.js';
import { stripeAcquirer } from './connectors/stripe/acquirer.js';
import { adyenAcquirer } from './connectors/adyen/acquirer.js';
import type { WebhookAcquirer } from './core/ports/acquirer-webhooks.js';
import { payoutLifecycleJob } from './core/payouts/lifecycle.js';
import { CardVault } from './core/records/vault.js';
import type { GatewayStore } from './core/ports/store.js';
import type { BackgroundJob } from './core/schedule/due-queue.js';
import { KvGatewayStore, type KeyNameHash } from './store/gateway-store.js';
import { MemoryKv } from './store/memory-kv.js';
import { RedisKv, connectRedis, type ConfirmOptions, type ConnectOptions } from './store/redis-kv.js';
import { StoreHealth } from './store/store-health.js';
import { authExpiryJob } from './core/jobs/auth-expiry.js';
import { httpNotificationTransport } from './outbound/http-transport.js';
import { deliveryJob, type NotificationTransport } from './core/notifications/delivery.js';
import { outboxRequeueJob } from './core/notifications/requeue.js';
import { subscriptionChargeJob } from './core/subscriptions/charges.js';
import { challengeExpiryJob } from './core/authorisation/challenge-expiry.js';
import { noMetrics } from './core/ports/metrics.js';
import { meteredJob } from './core/schedule/metered.js';
import { PrometheusMetrics } from './metrics/prometheus.js';
import { recoveryJob } from './core/jobs/recovery.js';
import { testClockJob } from './core/jobs/test-clocks.js';
import { disputeStepsJob } from './core/disputes/steps.js';
import { reconcileJob } from './core/reconcile/job.js';
import { LiveDirectory, recordsOfFile } from './core/merchants/live-directory.js';
import { RegistrySync } from './core/merchants/registry.js';

/**
 * The store the configuration asks for: Redis when REDIS_URL is set, else the embedded in-memory store.
 * `keyNameHash`: how merchants' texts (Idempotency-Keys) are hashed into key names (store/gateway-store.ts).
 * `confirm`: REDIS_MIN_REPLICAS and REDIS_CONFIRM_MS (unset: replicas found at start, 500 ms); `connect`:
 * STORE_TIMEOUT_MS, and where the connection's state and errors go (its health, the logger).
 */
export function openStore(
  redisUrl: string | undefined,
  keyNameHash?: KeyNameHash,
  confirm: ConfirmOptions = {},
  connect: ConnectOptions = {},
  timezone = 'UTC',
): GatewayStore {
  return new KvGatewayStore(
    redisUrl
      ? new RedisKv(connectRedis(redisUrl, connect), { ...confirm, ...(connect.health ? { health: connect.health } : {}) })
      : new MemoryKv(),
    keyNameHash,
    timezone,
  );
}

export interface ComposeOverrides {
  store?: GatewayStore;
  clock?: Clock;
  ids?: IdGenerator;
  transport?: NotificationTransport;
  /** wraps the sandbox card connector (fault tests: a connector that is slow, throws after acting, ...) */
  wrapConnector?: (sandbox: CardConnector) => CardConnector;
  /** wraps each account's acquirer connector (Stripe, Adyen), as wrapConnector the sandbox */
  wrapAcquirer?: (acquirer: CardConnector) => CardConnector;
  /** where acquirer credentials are read (docs/connectors.md: the merchants file names the variables); process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The acquirers an account may be routed to with its own credentials (src/connectors); the sandbox is shared. */
const ACQUIRERS: readonly AcquirerKind[] = [stripeAcquirer, adyenAcquirer];

/**
 * Every account must route to a registered connector: found at start, an unknown `routing.connector_code`
 * is a configuration error naming it, not a failure of each payment (and each job item) of that account.
 */
export function checkConnectors(merchants: Config['merchants'], connectors: ConnectorRegistry): void {
  for (const a of merchants.all()) {
    const code = a.routing.connector_code;
    if (!connectors.get(code, a)) {
      throw new ConfigError(
        `MERCHANTS_FILE: account ${a.merchant_id}/${a.account_id}: routing.connector_code "${code}" names no connector`,
      );
    }
  }
}

/** Wires the core's dependencies from the configuration; tests pass their own clock, ids or store. */
export function composeCore(config: Config, log: Logger, overrides: ComposeOverrides = {}): CoreDeps {
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? randomIds(clock);
  const vault = new CardVault(config.vaultKeys);
  // keyed by the vault: a card number sent as an Idempotency-Key cannot be found again by hashing candidates
  // what /metrics tells of the store without asking it (the embedded store is always up)
  const storeHealth = new StoreHealth();
  const store =
    overrides.store ??
    openStore(
      config.redisUrl,
      (text) => vault.fingerprint(`store key name\n${text}`),
      { minReplicas: config.redisMinReplicas, confirmMs: config.redisConfirmMs },
      { timeoutMs: config.storeTimeoutMs, health: storeHealth, log },
      config.timezone,
    );
  const sandbox = new SandboxConnector(ids, store, clock);
  let connectors: ConnectorRegistry;
  let acquirerWebhooks: Map<string, WebhookAcquirer>;
  try {
    // each Stripe or Adyen account gets its own connector, with its credentials; the sandbox stays shared
    const made = acquirerConnectors(ACQUIRERS, config.merchants.all(), {
      env: overrides.env ?? process.env,
      ledger: store,
      now: () => clock.now(),
      baseUrl: config.baseUrl,
    });
    // webhooks are checked by the account's own connector, as made (a wrapper for faults moves no webhook)
    acquirerWebhooks = webhookAcquirers(ACQUIRERS, made);
    const acquirers = new Map<string, CardConnector>(made);
    if (overrides.wrapAcquirer) for (const [key, c] of acquirers) acquirers.set(key, overrides.wrapAcquirer(c));
    connectors = connectorRegistry([overrides.wrapConnector ? overrides.wrapConnector(sandbox) : sandbox], acquirers);
    checkConnectors(config.merchants, connectors);
  } catch (err) {
    if (!overrides.store) void store.close();
    throw err instanceof AcquirerSettingsError ? new ConfigError(`MERCHANTS_FILE: ${err.message}`) : err;
  }
  // every request reads the directory in memory; the registry keeps it in step with the store
  const merchants = new LiveDirectory(config.merchants);
  const sync = new RegistrySync(
    { registry: store.registry(), merchants, clock, ids, log },
    recordsOfFile(config.merchantsSeed, clock.now()),
  );
  return {
    store,
    clock,
    ids,
    vault,
    connectors,
    acquirers: acquirerWebhooks,
    payoutConnector: new SandboxPayoutConnector(),
    fxRates: config.fxRates,
    merchants,
    operators: {
      keys: config.operatorKeys,
      ready: () => sync.ready(),
      refresh: () => sync.refresh(),
      records: () => merchants.allRecords(),
      follow: () => sync.follow(),
      stop: () => sync.stop(),
    },
    baseUrl: config.baseUrl,
    timezone: config.timezone,
    log,
    notifyAllowPrivate: config.notifyAllowPrivate,
    authFailuresPerMinute: config.authFailuresPerMinute,
    pendingResolveMs: config.pendingResolveMs,
    reconcileWindowMs: config.reconcileWindowMs,
    transport: overrides.transport ?? httpNotificationTransport,
    metrics: config.metricsAllow ? new PrometheusMetrics({ store, merchants, clock, storeHealth }) : noMetrics,
  };
}

/** The background jobs main starts (each issue's sweeps and workers are listed here). */
export function backgroundJobs(deps: CoreDeps, _config: Config): BackgroundJob[] {
  const jobs = [
    authExpiryJob(deps),
    deliveryJob(deps),
    outboxRequeueJob(deps),
    subscriptionChargeJob(deps),
    payoutLifecycleJob(deps),
    challengeExpiryJob(deps),
    recoveryJob(deps),
    testClockJob(deps),
    disputeStepsJob(deps),
    reconcileJob(deps),
  ];
  return jobs.map((job) => meteredJob(job, deps.metrics));
}
