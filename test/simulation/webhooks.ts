import type { World } from './world.js';
import type { Trace } from './steps.js';
import type { AcquirerEvent } from '../../src/core/acquirers/acquirer-events.js';
import { applyAcquirerEvent } from '../../src/core/acquirers/acquirer-events.js';
import { AcquirerJournal } from '../../src/core/acquirers/journal.js';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, MERCHANT_ID } from '../support/gateway.js';

/**
 * An acquirer webhook on its way to one account's address: it reaches the gateway at `at` (the run's clock). The
 * run's accounts share one acquirer account, which sends each event to every account's address; each applies it
 * to its own payments only (docs/connectors.md).
 */
export interface OwedWebhook {
  event: AcquirerEvent;
  account: string;
  at: number;
}

/** How long a webhook takes to arrive: mostly at once, now and then seconds or minutes late. */
const DELAYS_MS = [0, 0, 0, 0, 1_000, 5_000, 30_000, 90_000, 240_000];

/**
 * What the acquirer owes since the last call joins the webhooks on their way, each arriving after a delay of its
 * own (so in another order than the acquirer sent them), and one in seven twice (as acquirers send an event again
 * when they are not sure it arrived).
 */
function collect(w: World): void {
  const now = w.clock.now();
  for (const event of w.sim?.events?.() ?? [])
    for (const account of [ACCOUNT_ID, AUTO_ACCOUNT_ID]) {
      w.owed.push({ event, account, at: now + w.pick(DELAYS_MS) });
      if (w.chance(1 / 7)) w.owed.push({ event, account, at: now + w.pick(DELAYS_MS) });
    }
}

/**
 * The acquirer's webhooks that have arrived by now (Adyen's: what it did that the gateway may not have heard;
 * Stripe's: its intents', refunds' and disputes' moves), in an order the seed shuffles, each applied through
 * the core as the webhook route applies it, for the account whose address it reached. One the gateway did not
 * acknowledge (it threw: the route's 5xx; or the process died under it) is sent again with the next, as the
 * acquirer sends until it is acknowledged.
 */
export async function acquirerWebhooks(w: World, trace: Trace): Promise<void> {
  collect(w);
  const now = w.clock.now();
  const due = w.owed.filter((o) => o.at <= now);
  if (due.length === 0) return;
  for (const o of due) w.owed.splice(w.owed.indexOf(o), 1);
  for (let i = due.length - 1; i > 0; i--) {
    const j = Math.floor(w.random() * (i + 1));
    [due[i], due[j]] = [due[j]!, due[i]!];
  }
  trace.push(`webhooks: ${due.length} from ${w.sim!.code} (${due.map((o) => `${o.event.type}@${o.account.slice(-2)}`).join(', ')})`);
  for (const { event, account: accountId } of due) {
    const applied = await w.run(async (deps) => {
      const account = deps.merchants.find(MERCHANT_ID, accountId)!;
      // the account's own connector's journal, as the webhook route uses it
      const journal = new AcquirerJournal(deps.store.ledgerOf?.(MERCHANT_ID) ?? deps.store, w.sim!.code, () => w.clock.now(), accountId);
      return applyAcquirerEvent(deps, account, journal, event);
    });
    if (applied.kind !== 'done') w.owed.push({ event, account: accountId, at: w.clock.now() });
  }
}

/** Webhooks still on their way (quiescence waits for them). */
export function webhooksOwed(w: World): boolean {
  return w.owed.length > 0;
}
