import { Redis } from 'ioredis';

/** The seed addresses a REDIS_URL names, as host:port (its user and password left out). */
export function redisAddresses(url: string): { host: string; port: number }[] {
  if (url.startsWith('redis+cluster://'))
    return url
      .slice('redis+cluster://'.length)
      .split(',')
      .map((hp) => {
        const [host, port] = hp.split(':');
        return { host: host || '127.0.0.1', port: Number(port) || 6379 };
      });
  const u = new URL(url);
  return [{ host: u.hostname || '127.0.0.1', port: Number(u.port) || 6379 }];
}

/**
 * Asks the store named by REDIS_URL for a PING on a connection of its own, before the gateway's clients exist:
 * undefined when one seed answers within `timeoutMs`, else why none did, in one line. The probe's connection
 * never retries and its errors are caught here, so an unreachable store costs one line rather than a client's
 * reconnection attempts, each printed with a stack trace.
 */
export async function probeRedis(url: string, timeoutMs: number): Promise<string | undefined> {
  const reasons: string[] = [];
  const tls = url.startsWith('rediss://');
  for (const { host, port } of redisAddresses(url)) {
    const u = url.startsWith('redis+cluster://') ? undefined : new URL(url);
    const client = new Redis({
      host,
      port,
      ...(u?.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u?.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(tls ? { tls: {} } : {}),
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    // the socket's own error says more than the "Connection is closed" that connect() rejects with after it
    let socketError: NodeJS.ErrnoException | undefined;
    client.on('error', (err: NodeJS.ErrnoException) => (socketError ??= err));
    try {
      await client.connect();
      await client.ping();
      return undefined;
    } catch (err) {
      const e = socketError ?? (err as NodeJS.ErrnoException);
      const why =
        e.code === 'ECONNREFUSED'
          ? 'connection refused'
          : e.code === 'ENOTFOUND'
            ? 'no such host'
            : e.code === 'ETIMEDOUT'
              ? 'no answer'
              : /RESP|Protocol error/i.test(e.message)
                ? 'what answers there does not speak Redis'
                : e.message;
      reasons.push(`${host}:${port} (${why})`);
    } finally {
      client.disconnect();
    }
  }
  return `cannot reach Redis at ${reasons.join(', ')}`;
}
