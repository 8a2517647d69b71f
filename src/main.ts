import type { Server } from 'node:http';
import cluster from 'node:cluster';
import { runPrimary } from './cluster.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { coreLogger, createLogger, flushLogger } from './logger.js';
import { backgroundJobs, composeCore } from './compose.js';
import { startJobs } from './core/jobs/runner.js';
import { createApp } from './app.js';
import { createGatewayServer } from './http/server.js';
import type { CoreDeps } from './core/ports/deps.js';

function printDemoMerchant(config: Config): void {
  if (config.merchantsFromFile) return;
  const a = config.merchants.all()[0]!;
  process.stdout.write(
    [
      '',
      'No MERCHANTS_FILE given: running with the demo merchant',
      `  merchant_id: ${a.merchant_id}`,
      `  account_id:  ${a.account_id}`,
      `  sign_key:    ${a.sign_key}`,
      `  portal:      ${config.baseUrl}/portal as ${config.demoPortal?.email} with password ${config.demoPortal?.password}`,
      '',
    ].join('\n') + '\n',
  );
}

async function main(): Promise<void> {
  let config: Config;
  let log: ReturnType<typeof createLogger>;
  let deps: CoreDeps;
  try {
    config = loadConfig();
    log = createLogger(config.logLevel);
    if (config.workers > 1 && cluster.isPrimary) return runPrimary(config.workers, config.shutdownDrainMs + config.shutdownGraceMs, log);
    // every line a worker logs names it
    if (cluster.worker) log = log.child({ worker: cluster.worker.id });
    // composing checks what needs the core's parts, such as every account's connector
    deps = composeCore(config, coreLogger(log));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (!config.redisUrl) log.warn({}, 'no REDIS_URL: using the embedded in-memory store (state is lost on exit)');
  if (config.vaultKeyGenerated)
    log.warn({}, 'no VAULT_KEY or VAULT_KEYS: made a key for this run; stored cards are unreadable after a restart');
  // the store's merchants, seeded from the file where it lacks them; a store not answering yet is read later
  await deps
    .operators!.ready()
    .catch((err: unknown) =>
      log.warn({ err: (err as Error).message }, 'merchant registry not read at start: serving the merchants file until it answers'),
    );
  deps.operators!.follow();
  printDemoMerchant(config);

  let shuttingDown = false;
  const app = createApp(deps, {
    trustProxy: config.trustProxy,
    operatorName: config.operatorName,
    isShuttingDown: () => shuttingDown,
    development: config.development,
    metricsAllow: config.metricsAllow ?? [],
    store: config.redisUrl ? 'redis' : 'memory',
  });
  const server: Server = createGatewayServer(app, config.serverLimits);
  // an address it cannot listen on (a HOST that does not resolve or is not this machine's, a PORT in use) stops
  // the start naming the settings, as a bad setting does
  server.once('error', (err: NodeJS.ErrnoException) => {
    if (server.listening) throw err;
    process.stderr.write(`configuration error: HOST, PORT: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
    process.exit(2);
  });
  server.listen(config.port, config.host, () => {
    log.info(
      { port: config.port, host: config.host, store: config.redisUrl ? 'redis' : 'memory', base_url: config.baseUrl },
      'gateway listening',
    );
  });
  const jobs = startJobs(backgroundJobs(deps, config), log);

  const shutdown = (signal: string): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info({ signal, drain_ms: config.shutdownDrainMs }, 'shutting down: not ready, serving for the drain period');
    setTimeout(() => {
      log.info({}, 'drain period over: closing the listener, finishing requests in flight');
      // the grace period counts from here: what is still open then is cut
      const force = setTimeout(() => {
        log.warn({}, 'grace period over: closing remaining connections');
        server.closeAllConnections();
      }, config.shutdownGraceMs);
      force.unref();
      server.close(() => {
        deps.operators?.stop();
        void jobs
          .stop()
          .then(() => deps.store.close())
          .finally(() => {
            log.info({}, 'stopped');
            flushLogger(log);
            process.exit(0);
          });
      });
      // connections kept alive are closed as soon as their last answer is out
      server.closeIdleConnections();
      setInterval(() => server.closeIdleConnections(), 100).unref();
    }, config.shutdownDrainMs);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
