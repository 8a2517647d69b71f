import { createHash } from 'node:crypto';
import { Redis, Cluster } from 'ioredis';

/**
 * Replicated commits (docs/operations.md, "Replicated commits"): a commit script is acknowledged only once
 * the primary's replicas have confirmed it. WAIT (or WAITAOF, Redis 7.2 and later: fsynced by the replicas)
 * blocks the connection it is sent on and counts only that connection's writes, so each batch of commits
 * takes a connection of its own for the script and its WAIT, sent back to back: a small pool per primary,
 * opened as batches need them. One confirmation covers a whole batch (group commit), and batches of unrelated
 * requests run side by side instead of queueing behind one another's confirmation.
 */

/** The least a connection's commands could have done: nothing, or perhaps applied (the script's fate unknown). */
export class NotApplied extends Error {}

export interface ConfirmedReply {
  /** the commit script's reply: one entry per commit */
  replies: unknown[];
  /** the replicas that confirmed the batch reached the number asked for */
  confirmed: boolean;
}

/** Connections a primary gets at most for commits waiting for their confirmation (more batches queue). */
const LINKS_PER_NODE = 8;

/** Redis Cluster's hash slot of a key's tag (CRC16/XMODEM of the tag, modulo 16384). */
export function slotOf(tag: string): number {
  let crc = 0;
  for (const byte of Buffer.from(tag)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

interface Link {
  conn: Redis;
  busy: boolean;
  broken: boolean;
  /** SCRIPT LOAD of the commit script, sent first on the link: EVALSHA then finds it */
  loaded: Promise<unknown>;
}

interface Pool {
  links: Link[];
  /** batches waiting for a free link */
  waiting: ((link: Link) => void)[];
}

/** Redis's answer naming a step that was not taken: the script never ran (a node that is not the slot's primary, one loading, ...). */
const notRun = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN|LOADING|READONLY|MASTERDOWN|NOSCRIPT|BUSY)\b/;

export class ConfirmLinks {
  private readonly pools = new Map<string, Pool>();
  private readonly sha: string;
  private closed = false;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly script: string,
    /** replicas that must confirm each batch */
    private readonly replicas: number,
    private readonly confirmMs: number,
    /** WAITAOF (Redis 7.2 and later) rather than WAIT */
    private readonly aof: boolean,
  ) {
    this.sha = createHash('sha1').update(script).digest('hex');
  }

  /**
   * Runs the commit script for one batch (all its keys in the slot of `tag`) on the primary serving that slot,
   * then waits up to confirmMs for the replicas. Throws NotApplied when Redis answered that the script did not
   * run (after trying again where the cluster moved the slot); any other throw leaves the outcome unknown.
   */
  async commit(tag: string, keys: string[], args: (string | number)[]): Promise<ConfirmedReply> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(tag, 'EVALSHA', [this.sha, keys.length, ...keys, ...args]);
      } catch (err) {
        if (!(err instanceof NotApplied) || attempt >= 3 || this.closed) throw err;
        // the slot moved, or the node is not ready: ask the cluster where it is now, and try again
        await this.refresh();
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  /**
   * A write to the slot of `tag` sent now, then confirmed: true when the replicas have everything the slot's
   * primary wrote before it (the stream is ordered), so what reads back from it is confirmed.
   */
  async confirmNow(tag: string): Promise<boolean> {
    const key = `gw:{${tag}}:confirmed`;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.once(tag, 'SET', [key, String(Date.now()), 'PX', 60_000])).confirmed;
      } catch (err) {
        if (!(err instanceof NotApplied) || attempt >= 3 || this.closed) throw err;
        await this.refresh();
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  private async once(tag: string, command: string, commandArgs: (string | number)[]): Promise<ConfirmedReply> {
    const node = await this.nodeOf(tag);
    const link = await this.take(node);
    let timer: NodeJS.Timeout | undefined;
    // a primary that does not answer at all (stopped, cut off): the link is given up after the wait and a margin
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from ${node || 'Redis'} within ${this.confirmMs + 500} ms`)),
        this.confirmMs + 500,
      );
    });
    try {
      await Promise.race([link.loaded, deadline]);
      const reply = await Promise.race([this.sendWithWait(link, command, commandArgs), deadline]);
      if (reply.command === 'NOSCRIPT') {
        // the script is not loaded on this node (a promoted replica, a restart): it did not run; send it whole
        return this.unwrap(await Promise.race([this.sendWithWait(link, 'EVAL', [this.script, ...commandArgs.slice(1)]), deadline]));
      }
      return this.unwrap(reply);
    } catch (err) {
      link.broken = true;
      // a primary gone or cut off: the cluster may have promoted another by the next batch
      if (!(err instanceof NotApplied)) void this.refresh();
      throw err;
    } finally {
      clearTimeout(timer);
      this.give(node, link);
    }
  }

  private unwrap(reply: { command: unknown; wait: unknown }): ConfirmedReply {
    const confirmedBy = Array.isArray(reply.wait) ? Number(reply.wait[1]) : Number(reply.wait);
    return { replies: reply.command as unknown[], confirmed: confirmedBy >= this.replicas };
  }

  /** The command and its WAIT written together on one link; a reply naming a step not taken throws NotApplied. */
  private async sendWithWait(link: Link, command: string, commandArgs: (string | number)[]): Promise<{ command: unknown; wait: unknown }> {
    const first = link.conn.call(command, ...commandArgs);
    const wait = this.aof
      ? link.conn.call('WAITAOF', 0, this.replicas, this.confirmMs)
      : link.conn.call('WAIT', this.replicas, this.confirmMs);
    // both are awaited, so neither rejection goes unhandled
    const [c, w] = await Promise.allSettled([first, wait]);
    if (c.status === 'rejected') {
      const message = c.reason instanceof Error ? c.reason.message : String(c.reason);
      if (message.startsWith('NOSCRIPT')) return { command: 'NOSCRIPT', wait: undefined };
      if (notRun.test(message)) throw new NotApplied(message);
      throw c.reason;
    }
    if (w.status === 'rejected') throw w.reason;
    return { command: c.value, wait: w.value };
  }

  /** The address of the primary serving the slot of `tag` (one server: its own). */
  private async nodeOf(tag: string): Promise<string> {
    if (!(this.client instanceof Cluster)) return '';
    const slot = slotOf(tag);
    let node = this.client.slots[slot]?.[0];
    if (!node) {
      await this.refresh();
      node = this.client.slots[slot]?.[0];
    }
    if (!node) throw new NotApplied(`no primary known for slot ${slot}`);
    return node;
  }

  private refresh(): Promise<void> {
    const cluster = this.client;
    if (!(cluster instanceof Cluster)) return Promise.resolve();
    return new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
  }

  private take(node: string): Promise<Link> {
    let pool = this.pools.get(node);
    if (!pool) this.pools.set(node, (pool = { links: [], waiting: [] }));
    const free = pool.links.find((l) => !l.busy && !l.broken);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    if (pool.links.length < LINKS_PER_NODE) {
      const conn = this.connect(node);
      const link: Link = { conn, busy: true, broken: false, loaded: conn.call('SCRIPT', 'LOAD', this.script).catch(() => undefined) };
      const drop = () => {
        link.broken = true;
        if (!link.busy) this.remove(node, link);
      };
      link.conn.on('error', drop);
      link.conn.on('end', drop);
      pool.links.push(link);
      return Promise.resolve(link);
    }
    return new Promise<Link>((resolve) => pool.waiting.push(resolve));
  }

  private give(node: string, link: Link): void {
    const pool = this.pools.get(node);
    if (!pool) return;
    if (link.broken) {
      this.remove(node, link);
      // a batch waiting for a link gets a new one
      const next = pool.waiting.shift();
      if (next) void this.take(node).then(next);
      return;
    }
    const next = pool.waiting.shift();
    if (next) next(link);
    else link.busy = false;
  }

  private remove(node: string, link: Link): void {
    const pool = this.pools.get(node);
    if (pool) pool.links = pool.links.filter((l) => l !== link);
    link.conn.disconnect();
  }

  /**
   * A link: no automatic pipelining, no resending after a reconnect (a WAIT on a new connection would count
   * none of the script's writes and answer at once), no reconnecting (a broken link is replaced).
   */
  private connect(node: string): Redis {
    const own = {
      enableAutoPipelining: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: true,
      commandTimeout: undefined,
    };
    if (this.client instanceof Cluster) {
      const at = node.lastIndexOf(':');
      return new Redis({ ...this.client.options.redisOptions, ...own, host: node.slice(0, at), port: Number(node.slice(at + 1)) });
    }
    return this.client.duplicate(own);
  }

  close(): void {
    this.closed = true;
    for (const pool of this.pools.values()) for (const l of pool.links) l.conn.disconnect();
    this.pools.clear();
  }
}

/** What the store finds at start: replicas behind its primaries, and whether they have WAITAOF. */
export async function replicationOf(client: Redis | Cluster): Promise<{ replicas: number; aof: boolean }> {
  let replicas: number;
  let version: string;
  if (client instanceof Cluster) {
    const nodes = String(await client.call('CLUSTER', 'NODES'));
    const perPrimary = new Map<string, number>();
    for (const line of nodes.split('\n')) {
      const [id, , flags, primaryId] = line.split(' ');
      if (!id || !flags || flags.includes('fail') || flags.includes('handshake')) continue;
      if (flags.includes('master')) perPrimary.set(id, perPrimary.get(id) ?? 0);
      else if (flags.includes('slave') && primaryId) perPrimary.set(primaryId, (perPrimary.get(primaryId) ?? 0) + 1);
    }
    // the most any primary has: a primary without one (a cluster set up wrongly, or one replica short after a
    // failover) then has its commits refused unconfirmed, rather than every primary's left unconfirmed
    replicas = Math.max(0, ...perPrimary.values());
    version = /redis_version:(\S+)/.exec(String(await client.call('INFO', 'server')))?.[1] ?? '0';
  } else {
    const info = String(await client.info('replication')) + String(await client.info('server'));
    replicas = Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
    version = /redis_version:(\S+)/.exec(info)?.[1] ?? '0';
  }
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return { replicas, aof: major > 7 || (major === 7 && minor >= 2) };
}
