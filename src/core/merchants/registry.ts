import type { Clock, IdGenerator } from '../kernel/clock.js';
import type { Logger } from '../ports/deps.js';
import type { MerchantStore } from '../ports/merchant-store.js';
import type { MerchantRecord } from '../records/merchant-record.js';
import { differingFromFile, type LiveDirectory } from './live-directory.js';

/** How often a process compares the registry's version with its view's, besides the announcements. */
export const REGISTRY_CHECK_MS = 250;

export interface RegistryDeps {
  registry: MerchantStore;
  merchants: LiveDirectory;
  clock: Clock;
  ids: IdGenerator;
  log: Logger;
}

/**
 * Keeps a process's merchant view in step with the store: merchants the store lacks are created from the
 * merchants file (also when the store lost everything, as a Redis restarted without persistence), then the
 * view is read again whenever the registry's version moves.
 */
export class RegistrySync {
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private tail: Promise<void> | undefined;
  private startedOk = false;

  constructor(
    private readonly deps: RegistryDeps,
    /** the merchants file as records: the seed */
    private readonly seed: readonly MerchantRecord[],
  ) {}

  private started: Promise<void> | undefined;

  /** start, once: what the operators' calls wait for before their first change */
  ready(): Promise<void> {
    this.started ??= this.start().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  /** Seeds what the store lacks, reads the view, and says in one line where the store's copy differs from the file. */
  private async start(): Promise<void> {
    await this.seedMissing();
    const { version, merchants } = await this.deps.registry.all();
    this.deps.merchants.load(version, merchants);
    this.startedOk = true;
    const differing = differingFromFile(this.seed, merchants);
    if (differing.length > 0)
      this.deps.log.warn(
        { merchant_ids: differing },
        `MERCHANTS_FILE differs from the store for ${differing.join(', ')}: the store's copy is used (docs/operators.md)`,
      );
  }

  /** Follows the registry: announcements where the store has them, and a version check on a timer. */
  follow(checkMs = REGISTRY_CHECK_MS): void {
    this.unwatch = this.deps.registry.watch(() => this.check());
    this.timer = setInterval(() => this.check(), checkMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.unwatch?.();
  }

  /**
   * Reads the view again if the registry moved (one small read when it did not). Reads run one after another;
   * the answer comes after a read that began after the call, so a change this process just saved is in the view.
   */
  refresh(): Promise<void> {
    const next = (this.tail ?? Promise.resolve()).then(() =>
      this.read().catch((err: unknown) =>
        this.deps.log.warn({ err: (err as Error).message }, 'merchant registry check failed; the view stays as it was'),
      ),
    );
    this.tail = next;
    void next.finally(() => {
      if (this.tail === next) this.tail = undefined;
    });
    return next;
  }

  /** The timer's check: skipped while a read is still under way. */
  private check(): void {
    if (!this.tail) void this.refresh();
  }

  private async read(): Promise<void> {
    if (!this.startedOk) return this.ready();
    const version = await this.deps.registry.version();
    if (version === this.deps.merchants.loaded) return;
    if (version === 0 && this.seed.length > 0) await this.seedMissing();
    const all = await this.deps.registry.all();
    this.deps.merchants.load(all.version, all.merchants);
  }

  private async seedMissing(): Promise<void> {
    for (const m of this.seed) {
      if (await this.deps.registry.get(m.merchant_id)) continue;
      const at = this.deps.clock.now();
      // another process seeding the same merchant at the same moment wins: either copy is the file's
      await this.deps.registry.save({ ...m, created_at: at, updated_at: at }, 0, {
        id: this.deps.ids.opaque('oa'),
        at,
        operator_key_id: 'merchants-file',
        merchant_id: m.merchant_id,
        action: 'merchant_seeded',
        changes: { name: m.name, accounts: m.accounts.map((a) => a.account_id) },
      });
    }
  }
}
