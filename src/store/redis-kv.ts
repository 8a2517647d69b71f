import { Redis, Cluster } from 'ioredis';
import { GatewayError } from '../core/kernel/errors.js';
import type { CommitResult, Condition, KvStore, ScoredMember, Versioned, Write } from './kv.js';

/**
 * Checks every condition, then applies every write, in one script: Redis runs it as one atomic step.
 * Records are hashes {v: version, d: data}. ARGV: number of conditions, their versions, then the writes
 * as opcode and arguments; KEYS: the condition keys, then one key per write. A put is `p` (the version
 * counted up in Redis) or, on a key the commit checks, `P` with the version it gets.
 */
const COMMIT_SCRIPT = `
local nc = tonumber(ARGV[1])
for i = 1, nc do
  local cur = tonumber(redis.call('HGET', KEYS[i], 'v') or '0')
  if cur ~= tonumber(ARGV[i + 1]) then return KEYS[i] end
end
local a = nc + 2
local k = nc + 1
while a <= #ARGV do
  local op = ARGV[a]
  local key = KEYS[k]
  if op == 'p' then
    local version = redis.call('HINCRBY', key, 'v', 1)
    redis.call('HSET', key, 'd', ARGV[a + 1])
    local ttl = tonumber(ARGV[a + 2])
    -- a key made by this put has no expiry to remove
    if ttl > 0 then redis.call('PEXPIRE', key, ttl) elseif version > 1 then redis.call('PERSIST', key) end
    a = a + 3
  elseif op == 'P' then
    -- a put on a key this commit checked: its next version is known, so one HSET writes both fields
    local version = tonumber(ARGV[a + 3])
    redis.call('HSET', key, 'v', version, 'd', ARGV[a + 1])
    local ttl = tonumber(ARGV[a + 2])
    if ttl > 0 then redis.call('PEXPIRE', key, ttl) elseif version > 1 then redis.call('PERSIST', key) end
    a = a + 4
  elseif op == 'd' then
    redis.call('DEL', key)
    a = a + 1
  elseif op == 'z' then
    redis.call('ZADD', key, ARGV[a + 1], ARGV[a + 2])
    a = a + 3
  elseif op == 'r' then
    redis.call('ZREM', key, ARGV[a + 1])
    a = a + 2
  elseif op == 'h' then
    local by = tonumber(ARGV[a + 1])
    local n = tonumber(ARGV[a + 2])
    for j = 1, n do redis.call('HINCRBY', key, ARGV[a + 2 + j], by) end
    a = a + 3 + n
  else
    return redis.error_reply('unknown op ' .. tostring(op))
  end
  k = k + 1
end
return 1
`;

const WINDOW_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

type Client = Redis | Cluster;
type ScriptClient = Client & {
  gwCommit(numKeys: number, ...args: (string | number)[]): Promise<string | number>;
  gwWindow(key: string, windowMs: number): Promise<number>;
};

/** Connects to a Redis server or, with redis+cluster://h1:p1,h2:p2, a Redis Cluster. */
export function connectRedis(url: string): Client {
  const common = { enableAutoPipelining: true, maxRetriesPerRequest: 2, commandTimeout: 5000 };
  if (url.startsWith('redis+cluster://')) {
    const nodes = url
      .slice('redis+cluster://'.length)
      .split(',')
      .map((hp) => {
        const [host, port] = hp.split(':');
        return { host: host || '127.0.0.1', port: Number(port) || 6379 };
      });
    return new Cluster(nodes, { enableAutoPipelining: true, redisOptions: { commandTimeout: 5000 } });
  }
  return new Redis(url, common);
}

const isWrongType = (err: unknown): boolean => err instanceof Error && err.message.startsWith('WRONGTYPE');

function unavailable(err: unknown): GatewayError {
  const e = new GatewayError('STORE_UNAVAILABLE', 'the store is not answering; try again');
  e.cause = err;
  return e;
}

export class RedisKv implements KvStore {
  private client: ScriptClient;

  constructor(client: Client) {
    client.defineCommand('gwCommit', { lua: COMMIT_SCRIPT });
    client.defineCommand('gwWindow', { lua: WINDOW_SCRIPT, numberOfKeys: 1 });

    this.client = client as ScriptClient;
  }

  async get(key: string): Promise<Versioned | undefined> {
    try {
      const [v, d] = await this.client.hmget(key, 'v', 'd');
      return d == null ? undefined : { version: Number(v), data: d };
    } catch (err) {
      throw unavailable(err);
    }
  }

  async getMany(keys: readonly string[]): Promise<(Versioned | undefined)[]> {
    return Promise.all(keys.map((k) => this.get(k)));
  }

  async commit(conditions: readonly Condition[], writes: readonly Write[]): Promise<CommitResult> {
    const keys: string[] = conditions.map((c) => c.key);
    const args: (string | number)[] = [conditions.length, ...conditions.map((c) => c.version)];
    // a key whose version this commit checks gets that version plus one from its first put
    let checked: Map<string, number> | undefined;
    for (const c of conditions) (checked ??= new Map()).set(c.key, c.version);
    for (const w of writes) {
      keys.push(w.key);
      switch (w.op) {
        case 'put': {
          const expected = checked?.get(w.key);
          if (expected === undefined) args.push('p', w.data, w.ttlMs ?? 0);
          else {
            args.push('P', w.data, w.ttlMs ?? 0, expected + 1);
            checked!.delete(w.key);
          }
          break;
        }
        case 'del':
          args.push('d');
          break;
        case 'zadd':
          args.push('z', w.score, w.member);
          break;
        case 'zrem':
          args.push('r', w.member);
          break;
        case 'hincr':
          args.push('h', w.by, w.fields.length, ...w.fields);
          break;
      }
    }
    let reply: string | number;
    try {
      reply = await this.client.gwCommit(keys.length, ...keys, ...args);
    } catch (err) {
      throw unavailable(err);
    }
    return reply === 1 ? { ok: true } : { ok: false, conflict: String(reply) };
  }

  async range(key: string, min: number, max: number, limit: number, reverse = false): Promise<ScoredMember[]> {
    const bound = (n: number) => (n === -Infinity ? '-inf' : n === Infinity ? '+inf' : String(n));
    let flat: string[];
    try {
      flat = reverse
        ? await this.client.zrevrangebyscore(key, bound(max), bound(min), 'WITHSCORES', 'LIMIT', 0, limit)
        : await this.client.zrangebyscore(key, bound(min), bound(max), 'WITHSCORES', 'LIMIT', 0, limit);
    } catch (err) {
      throw unavailable(err);
    }
    const out: ScoredMember[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]) });
    return out;
  }

  async countInWindow(key: string, windowMs: number): Promise<number> {
    try {
      return Number(await this.client.gwWindow(key, windowMs));
    } catch (err) {
      throw unavailable(err);
    }
  }

  async count(key: string): Promise<number> {
    try {
      return await this.client.zcard(key);
    } catch (err) {
      throw unavailable(err);
    }
  }

  /**
   * One native command, SET NX GET (Redis 7.0 and later), not a script: a script's own price on the server
   * was about 30 us of Redis CPU per call, ten times the command's. A key written by an earlier version as a
   * {v, d} record (WRONGTYPE) answers that record's data.
   */
  async putOnce(key: string, data: string): Promise<string> {
    try {
      const earlier = (await this.client.call('SET', key, data, 'NX', 'GET')) as string | null;
      return earlier ?? data;
    } catch (err) {
      if (isWrongType(err)) return (await this.earlierRecord(key)) ?? data;
      throw unavailable(err);
    }
  }

  async getOnce(key: string): Promise<string | undefined> {
    try {
      return (await this.client.get(key)) ?? undefined;
    } catch (err) {
      if (isWrongType(err)) return this.earlierRecord(key);
      throw unavailable(err);
    }
  }

  private async earlierRecord(key: string): Promise<string | undefined> {
    try {
      return (await this.client.hget(key, 'd')) ?? undefined;
    } catch (err) {
      throw unavailable(err);
    }
  }

  async counters(key: string): Promise<Record<string, number>> {
    let raw: Record<string, string>;
    try {
      raw = await this.client.hgetall(key);
    } catch (err) {
      throw unavailable(err);
    }
    return Object.fromEntries(Object.entries(raw).map(([f, v]) => [f, Number(v)]));
  }

  async ping(): Promise<void> {
    try {
      await this.client.ping();
    } catch (err) {
      throw unavailable(err);
    }
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
