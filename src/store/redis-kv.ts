import { Redis, Cluster, ReplyError } from 'ioredis';
import { GatewayError } from '../core/kernel/errors.js';
import { ConfirmLinks, NotApplied, replicationOf, type ConfirmedReply } from './redis-confirm.js';
import type { CommitResult, Condition, KvStore, ScoredMember, Versioned, Write } from './kv.js';
import { StoreHealth, type StoreErrorKind } from './store-health.js';

/**
 * Applies a batch of independent commits in one script: Redis runs it as one atomic step, and each commit in
 * it checks every condition, then applies every write, or applies nothing and answers the key that failed.
 * Records are hashes {v: version, d: data}. ARGV: the number of commits, then per commit a control text and
 * the commit's strings (data, members, fields), in the order its writes use them. The control text is
 * numbers and opcodes parted by spaces: the commit's number of keys and of strings, the number of
 * conditions, their versions, then the writes as opcode and numbers. KEYS: per commit, its condition keys,
 * then one key per write. A put is `p ttl` (its version read in the checks) or, on a key the commit checks,
 * `P ttl version` with the version it gets; then `d`, `z score`, `r`, `h by count`, and `c ttl count by...`
 * (counters with amounts of their own, and the hash's expiry when it has none). A commit whose step
 * fails answers `!` and the error; the commits before and after it are not affected. A write-once record
 * (putOnce) is an entry of its own, `n`: a plain string set if absent (SET NX GET), which answers {earlier
 * data} when the key already held one; or `N` with a second key, the record's former key, whose record (if
 * any) answers first and leaves the new key unwritten. `o` makes a write-once record as part of a commit:
 * the commit fails as a conflict on that key when it already holds a record.
 *
 * All or nothing: Redis does not undo a script's writes when a later command fails, so a commit first checks
 * everything that could make one of its writes fail (every number and opcode, the kind of every key a write
 * after the first touches: a record hash, a sorted set, or none; the counters it adds to), then writes with
 * commands that cannot fail. A failing commit has written nothing, so a payment's `written_by` mark never
 * reads back from a commit that failed. The checks cost one call per sorted set a script writes after a
 * commit's first write (TYPE, read once a script) and one per counters write (HMGET); a put on a key it does
 * not check reads its version (HGET) and writes both fields in one HSET, where it counted it up (HINCRBY).
 *
 * Why one control text: ioredis copies a command's arguments with Array.prototype.flat, which V8 (node 20)
 * runs at about 75 ns an element; an authorisation's two commits were about 48 elements, now about 22.
 */
const COMMIT_SCRIPT = `
-- the kind of a key ('hash', 'zset', 'none', ...; false: to be read again) as the commits so far left it,
-- read with TYPE once a script; a commit's checks note what its writes will make of each key here, and a
-- commit that fails empties it
local known = {}
-- a number Redis takes as an integer once passed to it as a Lua number (then written without a point)
local function int(x)
  local n = tonumber(x)
  if not n or n ~= math.floor(n) or n > 9007199254740991 or n < -9007199254740991 then error('not an integer: ' .. tostring(x)) end
  return n
end
local function wrongtype(key, k) error('WRONGTYPE ' .. key .. ' holds a ' .. k) end
-- a write-once record's data: a plain string, or the d of a {v, d} record an earlier version wrote; false: none
local function once(key)
  local ok, v = pcall(redis.call, 'GET', key)
  if ok then return v end
  return redis.call('HGET', key, 'd')
end
-- a key a write needs absent or of kind want
local function need(key, want)
  local k = known[key]
  if not k then k = redis.call('TYPE', key)['ok'] end
  if k ~= 'none' and k ~= want then wrongtype(key, k) end
end
local function apply(kb, t, s)
  local nk, ns, nc = int(t[1]), int(t[2]), int(t[3])
  if kb + nk > #KEYS or s + ns > #ARGV then error('commit arguments missing') end
  for i = 1, nc do
    local cur = tonumber(redis.call('HGET', KEYS[kb + i], 'v') or '0')
    if cur ~= tonumber(t[3 + i]) then return KEYS[kb + i] end
  end
  -- the checks: nothing below them fails. ver: a record's version as the writes leave it (a put on a key
  -- not checked: read here); vs: the version of each such put, by its place
  local ver, vs, former
  local i, k, w, sa = 4 + nc, kb + nc + 1, 0, s
  while i <= #t do
    local op, key = t[i], KEYS[k]
    if key == nil then error('commit arguments missing') end
    w = w + 1
    if op == 'P' or op == 'p' then
      int(t[i + 1])
      local k0 = known[key]
      if k0 and k0 ~= 'hash' and k0 ~= 'none' then wrongtype(key, k0) end
      if op == 'P' then
        ver = ver or {}
        ver[key] = int(t[i + 2])
        i = i + 3
      else
        ver, vs = ver or {}, vs or {}
        local v = ver[key]
        -- HGET fails on a key that is not a hash: here, before any write
        if v == nil then v = int(redis.call('HGET', key, 'v') or '0') end
        ver[key], vs[w] = v + 1, v + 1
        i = i + 2
      end
      known[key] = 'hash'
      sa = sa + 1
    elseif op == 'd' then
      known[key] = 'none'
      ver = ver or {}
      ver[key] = 0
      i = i + 1
    elseif op == 'z' then
      local sc = tonumber(t[i + 1])
      if not sc or sc ~= sc or sc == math.huge or sc == -math.huge then error('not a score: ' .. tostring(t[i + 1])) end
      -- a commit's first write that fails has written nothing: it needs no check
      if w > 1 then need(key, 'zset') end
      known[key] = 'zset'
      sa = sa + 1
      i = i + 2
    elseif op == 'r' then
      if w > 1 then need(key, 'zset') end
      -- its last member removed takes the key with it, and a record put there then is refused: nothing
      -- written, and never asked for (no key is a sorted set at one time and a record at another)
      known[key] = 'zset'
      sa = sa + 1
      i = i + 1
    elseif op == 'n' or op == 'N' then
      if w > 1 then
        local k0 = known[key] or redis.call('TYPE', key)['ok']
        if k0 ~= 'none' and k0 ~= 'string' and k0 ~= 'hash' then wrongtype(key, k0) end
      end
      known[key] = false
      if op == 'N' then
        -- the record's former key: what it holds is the first record, and nothing is written
        k = k + 1
        if KEYS[k] == nil then error('commit arguments missing') end
        former = former or {}
        former[w] = once(KEYS[k])
      end
      sa = sa + 1
      i = i + 1
    elseif op == 'o' then
      -- a write-once record this commit makes: one already there (or a key of another kind) fails the whole
      -- commit as a conflict on it, before any write; what the checks noted is then not so
      if once(key) or (known[key] and known[key] ~= 'none') then
        known = {}
        return key
      end
      known[key] = false
      sa = sa + 1
      i = i + 1
    elseif op == 'c' then
      -- counters with their own amounts (c ttl n by1 .. byn), then an expiry: checked as h checks its own
      int(t[i + 1])
      local n = int(t[i + 2])
      local k0 = known[key]
      if k0 and k0 ~= 'hash' and k0 ~= 'none' then wrongtype(key, k0) end
      if n > 0 then
        local cur = redis.call('HMGET', key, unpack(ARGV, sa + 1, sa + n))
        for j = 1, n do
          local by, c = int(t[i + 2 + j]), cur[j]
          if c and not (#c <= 16 and (c == '0' or string.match(c, '^%-?[1-9]%d*$'))) then error('counter not an integer: ' .. c) end
          if c and math.abs(tonumber(c)) + math.abs(by) > 9007199254740991 then error('counter out of range: ' .. c) end
        end
      end
      known[key] = 'hash'
      sa = sa + n
      i = i + 3 + n
    elseif op == 'h' then
      local by, n = int(t[i + 1]), int(t[i + 2])
      local k0 = known[key]
      if k0 and k0 ~= 'hash' and k0 ~= 'none' then wrongtype(key, k0) end
      if n > 0 then
        -- HMGET fails on a key that is not a hash; each counter must be an integer as HINCRBY reads one
        local cur = redis.call('HMGET', key, unpack(ARGV, sa + 1, sa + n))
        for j = 1, n do
          local c = cur[j]
          if c and not (#c <= 16 and (c == '0' or string.match(c, '^%-?[1-9]%d*$'))) then error('counter not an integer: ' .. c) end
          if c and math.abs(tonumber(c)) + math.abs(by) > 9007199254740991 then error('counter out of range: ' .. c) end
        end
      end
      known[key] = 'hash'
      sa = sa + n
      i = i + 3
    else
      error('unknown op ' .. tostring(op))
    end
    k = k + 1
  end
  if k ~= kb + nk + 1 or sa ~= s + ns then error('commit arguments do not match its control text') end
  -- the writes
  local answer = 1
  i, k, w = 4 + nc, kb + nc + 1, 0
  while i <= #t do
    local op, key = t[i], KEYS[k]
    w = w + 1
    if op == 'P' then
      s = s + 1
      local version = tonumber(t[i + 2])
      redis.call('HSET', key, 'v', version, 'd', ARGV[s])
      local ttl = tonumber(t[i + 1])
      -- a key made by this put has no expiry to remove
      if ttl > 0 then redis.call('PEXPIRE', key, ttl) elseif version > 1 then redis.call('PERSIST', key) end
      i = i + 3
    elseif op == 'p' then
      s = s + 1
      local version = vs[w]
      redis.call('HSET', key, 'v', version, 'd', ARGV[s])
      local ttl = tonumber(t[i + 1])
      if ttl > 0 then redis.call('PEXPIRE', key, ttl) elseif version > 1 then redis.call('PERSIST', key) end
      i = i + 2
    elseif op == 'd' then
      redis.call('DEL', key)
      i = i + 1
    elseif op == 'z' then
      s = s + 1
      redis.call('ZADD', key, t[i + 1], ARGV[s])
      i = i + 2
    elseif op == 'r' then
      s = s + 1
      redis.call('ZREM', key, ARGV[s])
      i = i + 1
    elseif op == 'n' or op == 'N' then
      -- put-if-absent (SET NX GET): answers {earlier data} when the key was written before; a record of an
      -- earlier version ({v, d} hash: WRONGTYPE) answers its data. Another kind fails here only as the
      -- commit's first write (checked above otherwise), before anything was written.
      s = s + 1
      local earlier = op == 'N' and former[w]
      if op == 'N' then k = k + 1 end
      if not earlier then
        local ok
        ok, earlier = pcall(redis.call, 'SET', key, ARGV[s], 'NX', 'GET')
        if not ok then
          local e = type(earlier) == 'table' and earlier.err or tostring(earlier)
          if string.sub(e, 1, 9) ~= 'WRONGTYPE' then error(earlier) end
          earlier = redis.call('HGET', key, 'd')
        end
      end
      if earlier then answer = {earlier} end
      i = i + 1
    elseif op == 'o' then
      s = s + 1
      redis.call('SET', key, ARGV[s])
      i = i + 1
    elseif op == 'c' then
      local n = tonumber(t[i + 2])
      for j = 1, n do redis.call('HINCRBY', key, ARGV[s + j], t[i + 2 + j]) end
      -- the expiry is set once, when the hash is made: a read, not a write the AOF and the replicas carry each time
      if n > 0 and redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, t[i + 1]) end
      s = s + n
      i = i + 3 + n
    else
      local by = tonumber(t[i + 1])
      local n = tonumber(t[i + 2])
      for j = 1, n do redis.call('HINCRBY', key, ARGV[s + j], by) end
      s = s + n
      i = i + 3
    end
    k = k + 1
  end
  return answer
end
local out = {}
local a = 2
local kb = 0
for c = 1, tonumber(ARGV[1]) do
  local t = {}
  for w in string.gmatch(ARGV[a] or '', '%S+') do t[#t + 1] = w end
  local nk, ns = tonumber(t[1]), tonumber(t[2])
  if not nk or not ns then
    -- where the next commit starts is not known: this one and the rest fail, having written nothing
    for r = c, tonumber(ARGV[1]) do out[r] = '!commit control text not readable' end
    break
  end
  local ok, res = pcall(apply, kb, t, a)
  if ok then
    out[c] = res
  else
    out[c] = '!' .. tostring(type(res) == 'table' and (res.err or res) or res)
    -- what the failed commit's checks noted of its keys is not so
    known = {}
  end
  a = a + 1 + ns
  kb = kb + nk
end
return out
`;

const WINDOW_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

type Client = Redis | Cluster;
type ScriptClient = Client & {
  gwCommit(numKeys: number, ...args: (string | number)[]): Promise<(string | number)[]>;
  gwWindow(key: string, windowMs: number): Promise<number>;
};

/** How the connection behaves when the store is slow or gone (STORE_TIMEOUT_MS: docs/operations.md). */
export interface ConnectOptions {
  /** the longest one command waits for its answer; then it fails (default 1000 ms) */
  timeoutMs?: number;
  /** where the connection's state is kept for /metrics */
  health?: StoreHealth;
  /** the gateway's logger: the connection's errors are written as its JSON lines, once an outage */
  log?: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
}

/**
 * Connects to a Redis server or, with redis+cluster://h1:p1,h2:p2, a Redis Cluster. Fails fast: a command
 * waits at most `timeoutMs` for its answer; once connected, a command asked while the connection is down
 * fails at once (no offline queue) rather than waiting for the store to come back, and one in flight when
 * the connection drops fails then (no resend after the reconnection). The first connection still queues, so
 * what the start asks waits for it.
 */
export function connectRedis(url: string, options: ConnectOptions = {}): Client {
  // No auto-pipelining: commits batch themselves (RedisKv.commit), and a read is sent when it is asked. Reads
  // through ioredis's auto-pipeline kept every request's objects past two young collections (its pipelines,
  // once moved to the old generation, held later ones): under captures of 50 orders at 8 connections the
  // gateway moved 2.5 MB to the old generation a collection with it, 0.8 MB without, and spent about 8 % less
  // CPU a call without it (docs/performance.md, "Reads without ioredis's auto-pipeline").
  const commandTimeout = options.timeoutMs ?? 1000;
  let client: Client;
  if (url.startsWith('redis+cluster://')) {
    const nodes = url
      .slice('redis+cluster://'.length)
      .split(',')
      .map((hp) => {
        const [host, port] = hp.split(':');
        return { host: host || '127.0.0.1', port: Number(port) || 6379 };
      });
    client = new Cluster(nodes, { redisOptions: { commandTimeout } });
  } else {
    client = new Redis(url, {
      commandTimeout,
      // a command in flight when the connection drops fails then: resent later, it could land after its
      // request was answered
      maxRetriesPerRequest: 0,
      // tried again every half second at most while the store is down
      retryStrategy: (times: number) => Math.min(50 * times, 500),
    });
  }
  watchConnection(client, options);
  return client;
}

/** Keeps the connection's state in `health` and logs its errors through the gateway's logger (never ioredis's own text). */
function watchConnection(client: Client, { health, log }: ConnectOptions): void {
  let down = false;
  let errors = 0;
  if (health) health.connected = false;
  client.on('ready', () => {
    // from now on a command asked while the connection is down fails at once
    if (client instanceof Redis) client.options.enableOfflineQueue = false;
    if (health) health.connected = true;
    if (down) log?.info({ errors }, 'store connection back');
    down = false;
    errors = 0;
  });
  client.on('close', () => {
    if (health) health.connected = false;
  });
  // without a listener, ioredis writes each error as plain text ("Unhandled error event")
  client.on('error', (err: Error) => {
    errors++;
    if (health) health.connected = false;
    if (down) return;
    down = true;
    log?.warn({ err: { message: err.message } }, 'store connection lost; commands fail at once until it is back');
  });
}

/** The kind of a command's failure, for /metrics and for what its caller is told. */
function failureKind(err: unknown): StoreErrorKind {
  const message = err instanceof Error ? err.message : String(err);
  if (message.startsWith("Stream isn't writeable") || message.includes('enableOfflineQueue options is false')) return 'unreachable';
  if (message === 'Command timed out') return 'timeout';
  if (err instanceof ReplyError) return 'refused';
  return 'lost';
}

/** The first line of what the store answered, for the caller (an out-of-memory refusal names itself). */
const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);

const isWrongType = (err: unknown): boolean => err instanceof Error && err.message.startsWith('WRONGTYPE');

/** A command that failed, having written nothing: STORE_UNAVAILABLE, saying whether the store refused it or did not answer. */
function unavailable(err: unknown, kind: StoreErrorKind = failureKind(err)): GatewayError {
  const e =
    kind === 'refused'
      ? new GatewayError('STORE_UNAVAILABLE', `the store refused the change (${firstLine(err)}); nothing was written; try again`)
      : new GatewayError('STORE_UNAVAILABLE', 'the store is not answering; try again');
  e.cause = err;
  return e;
}

interface CommitArgs {
  keys: string[];
  /** the control text, then the strings */
  args: string[];
}

interface WaitingCommit extends CommitArgs {
  /** takes the script's reply for this entry: 1, a conflicting key, or (a put-if-absent) [earlier data] */
  answer(reply: unknown): void;
  reject(err: unknown): void;
}

/** A commit's result from its entry in the script's reply (1, or the key whose condition failed). */
const commitResult = (reply: unknown): CommitResult => (reply === 1 ? { ok: true } : { ok: false, conflict: String(reply) });

/** The key /readyz writes to learn that the store takes writes (hash-tagged, as every key the gateway writes). */
const READY_PROBE_KEY = 'gw:{readyz}:probe';

/** At most this many entries (commits and records) in one script: Redis serves nothing else while a script runs. */
const MAX_COMMITS_PER_SCRIPT = 64;

/** The part of a key that decides its Redis Cluster slot: the first non-empty {tag}, else the whole key. */
function slotTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** One commit's keys and arguments, as the commit script reads them: the control text, then the strings. */
function commitArgs(conditions: readonly Condition[], writes: readonly Write[]): CommitArgs {
  const keys: string[] = [];
  const strings: string[] = [];
  let control = String(conditions.length);
  // a key whose version this commit checks gets that version plus one from its first put
  const checked = new Map<string, number>();
  for (const c of conditions) {
    keys.push(c.key);
    control += ` ${c.version}`;
    checked.set(c.key, c.version);
  }
  for (const w of writes) {
    keys.push(w.key);
    switch (w.op) {
      case 'put': {
        const expected = checked.get(w.key);
        const ttl = w.ttlMs ?? 0;
        if (expected === undefined) control += ` p ${ttl}`;
        else {
          control += ` P ${ttl} ${expected + 1}`;
          checked.delete(w.key);
        }
        strings.push(w.data);
        break;
      }
      case 'del':
        control += ' d';
        break;
      case 'zadd':
        control += ` z ${w.score}`;
        strings.push(w.member);
        break;
      case 'zrem':
        control += ' r';
        strings.push(w.member);
        break;
      case 'hincr':
        control += ` h ${w.by} ${w.fields.length}`;
        for (const f of w.fields) strings.push(f);
        break;
      case 'tally':
        control += ` c ${w.ttlMs} ${w.fields.length}`;
        for (let j = 0; j < w.fields.length; j++) {
          control += ` ${w.by[j]}`;
          strings.push(w.fields[j]!);
        }
        break;
      case 'once':
        control += ' o';
        strings.push(w.data);
        break;
    }
  }
  return { keys, args: [`${keys.length} ${strings.length} ${control}`, ...strings] };
}

/** How the store confirms its commits (REDIS_MIN_REPLICAS, REDIS_CONFIRM_MS: docs/operations.md). */
export interface ConfirmOptions {
  /** replicas that must confirm each commit; undefined: 1 when the store has replicas at start, else 0 */
  minReplicas?: number;
  /** how long a commit waits for them before it is refused unconfirmed */
  confirmMs?: number;
  /** where command errors are counted (the one connectRedis was given) */
  health?: StoreHealth;
}

/** A commit the primary may have applied but its replicas did not confirm in time: its outcome is unknown. */
function unconfirmed(detail: string): GatewayError {
  const e = new GatewayError('STORE_UNCONFIRMED', 'the store did not confirm the change in time; its outcome is not known yet');
  e.cause = new Error(detail);
  return e;
}

export class RedisKv implements KvStore {
  private client: ScriptClient;
  private readonly cluster: boolean;
  /** commits waiting for the next flush, by hash slot tag (one script's keys must share a slot in a cluster) */
  private waiting = new Map<string, WaitingCommit[]>();
  /** connections listening on a channel (subscribe) */
  private readonly subscribers = new Set<Client>();
  private flushing = false;
  private readonly confirmMs: number;
  /** REDIS_MIN_REPLICAS as configured (undefined: found at start) */
  private readonly asked: number | undefined;
  /** replicas each commit needs (undefined until found at start), and the links that send commits and confirm them */
  private replicas: number | undefined;
  private links: ConfirmLinks | undefined;
  private found: Promise<void> | undefined;
  /**
   * Slot tags ('' on one server) with a commit of this process that may have been applied unconfirmed, each
   * with the turn it was found so: what is read there is not answered until a later write there is confirmed
   * (the replication stream is ordered), so an unconfirmed commit never reads back as applied here.
   */
  private readonly doubt = new Map<string, number>();
  private turn = 0;
  /** confirmations of `doubt` under way, by slot tag (readers of one tag share one) */
  private readonly vouching = new Map<string, Promise<void>>();
  private readonly sending = new Set<Promise<void>>();
  readonly health: StoreHealth;

  constructor(client: Client, options: ConfirmOptions = {}) {
    this.health = options.health ?? new StoreHealth(client.status === 'ready');
    this.cluster = client instanceof Cluster;
    client.defineCommand('gwCommit', { lua: COMMIT_SCRIPT });
    client.defineCommand('gwWindow', { lua: WINDOW_SCRIPT, numberOfKeys: 1 });

    this.client = client as ScriptClient;
    this.confirmMs = options.confirmMs ?? 500;
    this.asked = options.minReplicas;
    if (options.minReplicas === 0) this.replicas = 0;
    // asked again by the first commit if the store does not answer yet (never an unhandled rejection)
    else this.find().catch(() => undefined);
  }

  private find(): Promise<void> {
    return (this.found ??= this.findReplication(this.asked));
  }

  /** At start: the replicas behind the primaries (INFO replication, CLUSTER NODES) and the server's version. */
  private async findReplication(asked: number | undefined): Promise<void> {
    try {
      const found = await replicationOf(this.client);
      const replicas = asked ?? (found.replicas > 0 ? 1 : 0);
      if (replicas > 0) this.links = new ConfirmLinks(this.client, COMMIT_SCRIPT, replicas, this.confirmMs, found.aof);
      this.replicas = replicas;
    } catch (err) {
      // not known yet (the store does not answer): the next commit asks again
      this.found = undefined;
      throw this.failed(err);
    }
  }

  /** How many replicas confirm each commit: 0 for none (REDIS_MIN_REPLICAS, or found at start). */
  async confirmation(): Promise<number> {
    if (this.replicas === undefined) await this.find();
    return this.replicas!;
  }

  /** Waits, where a commit of this process may be unconfirmed in the slot of `key`, until a write there is confirmed. */
  private vouch(key: string): Promise<void> | undefined {
    if (this.doubt.size === 0) return undefined;
    const tag = this.cluster ? slotTag(key) : '';
    if (!this.doubt.has(tag)) return undefined;
    let pending = this.vouching.get(tag);
    if (!pending) {
      const asked = ++this.turn;
      pending = this.links!.confirmNow(tag).then(
        (confirmed) => {
          this.vouching.delete(tag);
          if (!confirmed) throw unconfirmed(`no confirmation of the slot of ${key} within ${this.confirmMs} ms`);
          if ((this.doubt.get(tag) ?? Infinity) < asked) this.doubt.delete(tag);
        },
        (err: unknown) => {
          this.vouching.delete(tag);
          throw unconfirmed(`the slot of ${key} could not be confirmed: ${(err as Error).message}`);
        },
      );
      this.vouching.set(tag, pending);
    }
    return pending;
  }

  /** A command that wrote nothing failed: counted by kind, answered STORE_UNAVAILABLE. */
  private failed(err: unknown, kind: StoreErrorKind = failureKind(err)): GatewayError {
    this.health.error(kind);
    return unavailable(err, kind);
  }

  /**
   * A commit script that failed: never sent (no connection) or refused whole by the store, it wrote nothing;
   * sent and unanswered (a timeout, the connection lost under it), it may have been applied, and its outcome
   * is unknown (STORE_UNCONFIRMED), never "nothing was written".
   */
  private commitFailed(err: unknown, commits: number): GatewayError {
    const kind = failureKind(err);
    if (kind === 'unreachable' || kind === 'refused') return this.failed(err, kind);
    this.health.error(kind);
    this.health.unknownCommits += commits;
    return unconfirmed(`the store did not answer the commit: ${firstLine(err)}`);
  }

  async get(key: string): Promise<Versioned | undefined> {
    await this.vouch(key);
    try {
      const [v, d] = await this.client.hmget(key, 'v', 'd');
      return d == null ? undefined : { version: Number(v), data: d };
    } catch (err) {
      throw this.failed(err);
    }
  }

  async getMany(keys: readonly string[]): Promise<(Versioned | undefined)[]> {
    return Promise.all(keys.map((k) => this.get(k)));
  }

  /**
   * Commits issued while one batch of replies is handled (the orders of a capture, the requests whose
   * Redis replies came together) are sent as one script: each is still checked and applied on its own, but
   * Redis runs one script, not one per commit (a script's own price on the server is about ten times that of
   * the commands in it), and the client builds one command.
   */
  commit(conditions: readonly Condition[], writes: readonly Write[]): Promise<CommitResult> {
    const queued = commitArgs(conditions, writes);
    return new Promise<CommitResult>((resolve, reject) => {
      // a literal, not a spread of `queued`: the profile put 3 % of an authorisation on this line with the spread
      this.enqueue({ keys: queued.keys, args: queued.args, answer: (reply) => resolve(commitResult(reply)), reject });
    });
  }

  private enqueue(entry: WaitingCommit): void {
    const slot = this.cluster ? slotTag(entry.keys[0] ?? '') : '';
    let waiting = this.waiting.get(slot);
    if (!waiting) this.waiting.set(slot, (waiting = []));
    waiting.push(entry);
    if (!this.flushing) {
      this.flushing = true;
      // after this turn of the event loop has read its sockets: the commits of every request it served
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushing = false;
    const bySlot = this.waiting;
    this.waiting = new Map();
    for (const waiting of bySlot.values()) {
      for (let i = 0; i < waiting.length; i += MAX_COMMITS_PER_SCRIPT) void this.send(waiting.slice(i, i + MAX_COMMITS_PER_SCRIPT));
    }
  }

  private send(batch: readonly WaitingCommit[]): void {
    const sent = (this.replicas === 0 ? this.sendUnconfirmed(batch) : this.sendConfirmed(batch)).finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  private async sendUnconfirmed(batch: readonly WaitingCommit[]): Promise<void> {
    const keys: string[] = [];
    const args: (string | number)[] = [batch.length];
    for (const c of batch) {
      for (const k of c.keys) keys.push(k);
      for (const a of c.args) args.push(a);
    }
    let replies: (string | number)[];
    try {
      replies = await this.client.gwCommit(keys.length, ...keys, ...args);
    } catch (err) {
      const e = this.commitFailed(err, batch.length);
      for (const c of batch) c.reject(e);
      return;
    }
    this.answer(batch, replies);
  }

  /**
   * The batch's script and a WAIT (WAITAOF) for its replicas on a link of its own (ConfirmLinks). Unconfirmed,
   * or without an answer, each commit that may have been applied is refused STORE_UNCONFIRMED (a conflict,
   * which applied nothing, is still answered), and its slot is in doubt until a later write there is confirmed.
   */
  private async sendConfirmed(batch: readonly WaitingCommit[]): Promise<void> {
    if (this.replicas === undefined) {
      try {
        await this.find();
      } catch (err) {
        for (const c of batch) c.reject(err);
        return;
      }
      if (this.replicas === 0) return this.sendUnconfirmed(batch);
    }
    const keys: string[] = [];
    const args: (string | number)[] = [batch.length];
    for (const c of batch) {
      for (const k of c.keys) keys.push(k);
      for (const a of c.args) args.push(a);
    }
    const tag = this.cluster ? slotTag(keys[0] ?? '') : '';
    const started = ++this.turn;
    let outcome: ConfirmedReply;
    try {
      outcome = await this.links!.commit(tag, keys, args);
    } catch (err) {
      if (err instanceof NotApplied) {
        const e = this.failed(err, 'unreachable');
        for (const c of batch) c.reject(e);
        return;
      }
      // the script may have run: unknown, as an unconfirmed one
      this.doubt.set(tag, ++this.turn);
      this.health.error('unconfirmed');
      this.health.unknownCommits += batch.length;
      const e = unconfirmed((err as Error).message);
      for (const c of batch) c.reject(e);
      return;
    }
    if (!outcome.confirmed) {
      this.doubt.set(tag, ++this.turn);
      this.health.error('unconfirmed');
      const e = unconfirmed(`fewer than ${this.replicas} replicas confirmed within ${this.confirmMs} ms`);
      for (let i = 0; i < batch.length; i++) {
        const reply = outcome.replies[i];
        // a conflict applied nothing; anything else may have been applied
        if (typeof reply === 'string' && !reply.startsWith('!')) batch[i]!.answer(reply);
        else {
          this.health.unknownCommits++;
          batch[i]!.reject(e);
        }
      }
      return;
    }
    // the stream is ordered: this confirmation covers what the slot's primary wrote before this batch
    if ((this.doubt.get(tag) ?? Infinity) < started) this.doubt.delete(tag);
    this.answer(batch, outcome.replies as (string | number)[]);
  }

  private answer(batch: readonly WaitingCommit[], replies: readonly (string | number)[]): void {
    for (let i = 0; i < batch.length; i++) {
      const reply = replies[i];
      if (reply === undefined) batch[i]!.reject(this.failed(new Error('the commit script answered no entry for this commit'), 'refused'));
      // a commit whose step failed wrote nothing (the script checks before it writes): an out-of-memory refusal
      else if (typeof reply === 'string' && reply.startsWith('!')) batch[i]!.reject(this.failed(new Error(reply.slice(1)), 'refused'));
      else batch[i]!.answer(reply);
    }
  }

  async range(key: string, min: number, max: number, limit: number, reverse = false): Promise<ScoredMember[]> {
    const bound = (n: number) => (n === -Infinity ? '-inf' : n === Infinity ? '+inf' : String(n));
    let flat: string[];
    await this.vouch(key);
    try {
      flat = reverse
        ? await this.client.zrevrangebyscore(key, bound(max), bound(min), 'WITHSCORES', 'LIMIT', 0, limit)
        : await this.client.zrangebyscore(key, bound(min), bound(max), 'WITHSCORES', 'LIMIT', 0, limit);
    } catch (err) {
      throw this.failed(err);
    }
    const out: ScoredMember[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]) });
    return out;
  }

  async countInWindow(key: string, windowMs: number): Promise<number> {
    try {
      return Number(await this.client.gwWindow(key, windowMs));
    } catch (err) {
      throw this.failed(err);
    }
  }

  async count(key: string): Promise<number> {
    await this.vouch(key);
    try {
      return await this.client.zcard(key);
    } catch (err) {
      throw this.failed(err);
    }
  }

  /**
   * SET NX GET (Redis 7.0 and later) as an entry of the next commit script, not a command of its own: the
   * sandbox acquirer's record of an authorisation then rides with the commits of the same turn (on a Redis
   * Cluster, those of the merchant whose key tag it shares), and is confirmed with them; the gateway's CPU
   * per authorisation fell 4 to 11 % (bench/run.ts, BENCH_COMPARE) against the native command sent through
   * ioredis's auto-pipeline (since turned off). A key written by an earlier version as a {v, d} record (WRONGTYPE) answers that
   * record's data. `formerKey` is read in the same step on one server; on a Cluster it is in another slot,
   * and not read.
   */
  putOnce(key: string, data: string, formerKey?: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const answer = (reply: unknown) => resolve(Array.isArray(reply) ? String(reply[0]) : data);
      if (formerKey !== undefined && !this.cluster) this.enqueue({ keys: [key, formerKey], args: ['2 1 0 N', data], answer, reject });
      else this.enqueue({ keys: [key], args: ['1 1 0 n', data], answer, reject });
    });
  }

  async getOnce(key: string, formerKey?: string): Promise<string | undefined> {
    const kept = await this.readOnce(key);
    return kept === undefined && formerKey !== undefined ? this.readOnce(formerKey) : kept;
  }

  private async readOnce(key: string): Promise<string | undefined> {
    await this.vouch(key);
    try {
      return (await this.client.get(key)) ?? undefined;
    } catch (err) {
      if (isWrongType(err)) return this.earlierRecord(key);
      throw this.failed(err);
    }
  }

  private async earlierRecord(key: string): Promise<string | undefined> {
    try {
      return (await this.client.hget(key, 'd')) ?? undefined;
    } catch (err) {
      throw this.failed(err);
    }
  }

  async counters(key: string): Promise<Record<string, number>> {
    let raw: Record<string, string>;
    await this.vouch(key);
    try {
      raw = await this.client.hgetall(key);
    } catch (err) {
      throw this.failed(err);
    }
    return Object.fromEntries(Object.entries(raw).map(([f, v]) => [f, Number(v)]));
  }

  /** The store answers and takes a write (a store out of memory answers PING but refuses every change). */
  async ping(): Promise<void> {
    try {
      await this.client.set(READY_PROBE_KEY, '1', 'PX', 60_000);
    } catch (err) {
      throw this.failed(err);
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    try {
      await this.client.publish(channel, message);
    } catch (err) {
      throw unavailable(err);
    }
  }

  subscribe(channel: string, onMessage: (message: string) => void): () => void {
    // a subscribed connection takes no other command: a connection of its own, closed with the store
    const sub: Client = this.client instanceof Cluster ? this.client.duplicate() : (this.client as Redis).duplicate();
    this.subscribers.add(sub);
    sub.on('message', (ch: string, message: string) => {
      if (ch === channel) onMessage(message);
    });
    sub.on('error', () => {
      // reconnects by itself; the version check on a timer covers what it misses meanwhile
    });
    void sub.subscribe(channel).catch(() => undefined);
    return () => {
      this.subscribers.delete(sub);
      sub.disconnect();
    };
  }

  async close(): Promise<void> {
    for (const sub of this.subscribers) sub.disconnect();
    this.subscribers.clear();
    // commits still waiting for their turn go out before QUIT, not after it
    if (this.waiting.size > 0) this.flush();
    await Promise.allSettled([...this.sending]);
    this.links?.close();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
