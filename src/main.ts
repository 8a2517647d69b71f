import type { Server } from 'node:http';
import cluster from 'node:cluster';
import { runPrimary } from './cluster.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { coreLogger, createLogger, flushLogger } from './logger.js';
import { backgroundJobs, composeCore } from './compose.js';
import { startJobs } from './core/schedule/runner.js';
import { createApp } from './app.js';
import { createGatewayServer } from './http/server.js';
import type { CoreDeps } from './core/ports/deps.js';
import { probeRedis } from './store/redis-probe.js';

/** How long a start waits for the store to answer before it gives up, naming REDIS_URL. */
const STORE_PROBE_MS = 5000;

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
      config.demoPortal?.file
        ? `               (kept in ${config.demoPortal.file}; delete that file for a new one)`
        : '               (made for this run: the project folder cannot be written; set DEMO_PORTAL_PASSWORD_FILE to keep it)',
      '',
    ].join('\n') + '\n',
  );
}

/** Why the address cannot be listened on, in words naming the setting to change. */
function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): string {
  if (err.code === 'EADDRINUSE')
    return `PORT: port ${port} on ${host} is already in use by another program; stop that program or set PORT to a free port (such as PORT=8081)`;
  if (err.code === 'EACCES')
    return `PORT: this user may not listen on port ${port}; ports below 1024 need privileges, so set PORT to 1024 or above (such as PORT=8080)`;
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
    return `HOST: ${host} is not an address of this machine; set HOST to one of its addresses, or 0.0.0.0 for all of them`;
  return `HOST, PORT: cannot listen on ${host}:${port}: ${err.message}`;
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
    if (config.redisUrl) {
      const unreachable = await probeRedis(config.redisUrl, STORE_PROBE_MS);
      if (unreachable) {
        process.stderr.write(`store error: REDIS_URL: ${unreachable}; start Redis, or set REDIS_URL to where it runs\n`);
        process.exit(3);
      }
    }
    // composing checks what needs the core's parts, such as every account's connector
    deps = composeCore(config, coreLogger(log));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // the store's merchants, seeded from the file where it lacks them; a store not answering yet is read later
  await deps
    .operators!.ready()
    .catch((err: unknown) =>
      log.warn({ err: (err as Error).message }, 'merchant registry not read at start: serving the merchants file until it answers'),
    );
  deps.operators!.follow();

  let shuttingDown = false;
  const app = createApp(deps, {
    trustProxy: config.trustProxy,
    operatorName: config.operatorName,
    operatorLogo: config.operatorLogo,
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
    process.stderr.write(`configuration error: ${listenFailure(err, config.host, config.port)}\n`);
    process.exit(2);
  });
  // the demo merchant's password and the notes about this run are printed once the address is ours, so a start
  // that cannot listen prints no address it does not own
  server.listen(config.port, config.host, () => {
    if (!config.redisUrl) log.warn({}, 'no REDIS_URL: using the embedded in-memory store (state is lost on exit)');
    if (config.vaultKeyGenerated)
      log.warn({}, 'no VAULT_KEY or VAULT_KEYS: made a key for this run; stored cards are unreadable after a restart');
    printDemoMerchant(config);
    log.info(
      { port: config.port, host: config.host, store: config.redisUrl ? 'redis' : 'memory', base_url: config.baseUrl },
      'gateway listening',
    );
    // what the start had to say is out before the first request is answered, not at the next buffer flush
    flushLogger(log);
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
