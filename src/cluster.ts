import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { flushLogger } from './logger.js';

/** More restarts than this within RESTART_WINDOW_MS mean workers cannot start: the primary gives up. */
const MAX_RESTARTS = 10;
const RESTART_WINDOW_MS = 60_000;

/**
 * The node:cluster primary of WORKERS gateway processes: it serves nothing itself. Each worker runs the HTTP
 * server (connections are shared out by the primary) and the background jobs, which are safe across
 * processes through the store's versioned commits. A worker that dies is replaced; SIGTERM or SIGINT
 * stops every worker gracefully, and the primary exits 0 when all of them did.
 */
export function runPrimary(count: number, graceMs: number, log: Logger): void {
  const alive = new Set<Worker>();
  const restarts: number[] = [];
  let stopping = false;
  let exitCode = 0;

  const fork = (): void => {
    alive.add(cluster.fork());
  };
  const finish = (): void => {
    log.info({ exit_code: exitCode }, 'all workers stopped');
    flushLogger(log);
    process.exit(exitCode);
  };
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, workers: alive.size }, 'shutting down: stopping the workers');
    if (alive.size === 0) return finish();
    for (const w of alive) w.process.kill('SIGTERM');
    // each worker has its own drain and grace periods; one that outlives them by far is stuck
    setTimeout(() => {
      for (const w of alive) w.process.kill('SIGKILL');
    }, graceMs + 5_000).unref();
  };

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    if (stopping) {
      if (code !== 0 && exitCode === 0) exitCode = 1;
      if (alive.size === 0) finish();
      return;
    }
    if (code === 2) {
      // main.ts exits 2 on a configuration error: another worker would meet the same one
      log.fatal({ worker: worker.id }, 'a worker stopped on a configuration error: stopping');
      exitCode = 2;
      return stop('configuration error');
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length > MAX_RESTARTS) {
      log.fatal({ restarts: restarts.length }, 'workers keep dying: stopping');
      exitCode = 1;
      return stop('restart limit');
    }
    log.error({ worker: worker.id, pid: worker.process.pid, code, signal }, 'worker died: starting another');
    fork();
  });
  for (let i = 0; i < count; i++) fork();
  log.info({ workers: count }, 'cluster primary started');
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
