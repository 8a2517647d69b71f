import type { World } from './world.js';
import type { Payment } from '../../src/core/records/payment.js';
import { MERCHANT_ID } from '../support/gateway.js';
import { emptyBook, type AcquirerBook } from '../support/acquirers/books.js';
import { entryAt, type TimedEntry } from '../../src/connectors/sandbox/sandbox-cards.js';
import { SANDBOX_RESPONSE_WINDOW_MS, SANDBOX_REVERSAL_MS, sandboxCycle } from '../../src/connectors/sandbox/sandbox-disputes.js';

/** A sandbox ledger record as the sandbox keeps it (src/connectors/sandbox/sandbox.ts): what was asked, and its answer. */
interface SandboxRecord {
  op: string;
  amount?: number;
  connectorRef?: string;
  outcome?: { kind?: string; ok?: boolean; connectorRef?: string };
}

/**
 * What the acquirer's own records hold for a payment: a stub's (SimAcquirer.book), or the sandbox's ledger in the
 * store, read record by record under the references the run sent (the sandbox keeps one record per reference).
 */
export async function bookOf(w: World, transactionId: string, p: Payment | undefined): Promise<AcquirerBook> {
  if (w.sim?.book) return w.sim.book(transactionId);
  const ledger = w.checkStore.ledgerOf(MERCHANT_ID);
  const now = (await w.timeOf(p)) ?? w.clock.now();
  // a timed test card's record as it stands now (sandbox-cards.ts): decided, acted on or failed since
  const read = async (reference: string): Promise<SandboxRecord | undefined> => {
    const kept = await ledger.ledgerLookup(reference);
    if (kept === undefined) return undefined;
    const record = JSON.parse(kept) as SandboxRecord & TimedEntry;
    if (!('outcome' in record)) return record;
    try {
      return { ...record, outcome: entryAt(record, now) };
    } catch {
      // still running at the sandbox: nothing done yet
      return undefined;
    }
  };
  const book = emptyBook();
  const auth = await read(transactionId);
  if (auth) book.objects[transactionId] = 1;
  const challenged = auth?.outcome?.kind === 'challenge' ? await read(`${transactionId}-3ds`) : undefined;
  const approved = auth?.outcome?.kind === 'approved' || challenged?.outcome?.kind === 'approved';
  if (!auth || !approved) return withRefunds(w, book, transactionId, read);

  const connectorRef = (challenged ?? auth).outcome?.connectorRef ?? '';
  book.authorised = auth.amount;
  book.held = (await read(`${transactionId}-void`))?.outcome?.ok !== true;
  const capture = await read(`${transactionId}-cap`);
  const marker = await ledger.ledgerLookup(`${connectorRef}#capture`);
  if (capture && (marker === `${transactionId}-cap` || capture.outcome?.ok === true)) {
    book.captured = capture.amount ?? 0;
    book.captures = 1;
  } else if (p && capturedWithAuthorisation(w, p)) {
    // the sandbox's approval of an authorisation asked with `capture` is both (capture_mode auto, not for review)
    book.captured = auth.amount ?? 0;
    book.captures = 1;
  }
  // a chargeback lost takes what was captured (the inquiry card's dispute takes nothing)
  if (!connectorRef.startsWith('sbxdg_') && (await sandboxDispute(ledger, `${connectorRef}_dp01`, now)) === 'lost')
    book.disputed = book.captured;
  return withRefunds(w, book, transactionId, read);
}

/**
 * What the sandbox has decided on a dispute (`disputeRef`, sandbox.ts) by now, read from its ledger by its own
 * rules without asking it (asking records): its decision (an unanswered dispute lost after its window), the
 * cycle card's reversed as time went on. undefined for no dispute, or one not decided yet.
 */
export async function sandboxDispute(
  ledger: ReturnType<World['checkStore']['ledgerOf']>,
  disputeRef: string,
  now: number,
): Promise<'won' | 'lost' | undefined> {
  const opened = await ledger.ledgerLookup(`${disputeRef}#opened`);
  const kept = await ledger.ledgerLookup(`${disputeRef}#decision`);
  const decided = kept ?? (opened !== undefined && now > Number(opened) + SANDBOX_RESPONSE_WINDOW_MS ? 'lost' : undefined);
  if (decided !== 'won' && decided !== 'lost') return undefined;
  if (!disputeRef.startsWith('sbxdc_')) return decided;
  const decidedAt = Number((await ledger.ledgerLookup(`${disputeRef}#decided`)) ?? now);
  return sandboxCycle(decided, decidedAt, now).status;
}

/**
 * Every decision the sandbox made on a dispute by now, in order: its first (as sandboxDispute reads it), and for
 * the cycle card each reversal since, as its rules time them from the first.
 */
export async function sandboxDecisions(
  ledger: ReturnType<World['checkStore']['ledgerOf']>,
  disputeRef: string,
  now: number,
): Promise<('won' | 'lost')[]> {
  const first = await sandboxDispute(ledger, disputeRef, now);
  if (first === undefined || !disputeRef.startsWith('sbxdc_')) return first ? [first] : [];
  const decidedAt = Number((await ledger.ledgerLookup(`${disputeRef}#decided`)) ?? now);
  const kept = (await ledger.ledgerLookup(`${disputeRef}#decision`)) as 'won' | 'lost' | undefined;
  const log: ('won' | 'lost')[] = [];
  for (let at = decidedAt; at <= now; at += SANDBOX_REVERSAL_MS) {
    const status = sandboxCycle(kept ?? first, decidedAt, at).status;
    if (log.at(-1) !== status) log.push(status);
  }
  return log;
}

/** The payment was authorised with `capture` (authorise.ts, charges.ts): an auto-capture account, not held for review. */
function capturedWithAuthorisation(w: World, p: Payment): boolean {
  return w.deps.merchants.find(MERCHANT_ID, p.account_id)?.capture_mode === 'auto' && p.risk.action !== 'REVIEW';
}

/** The sandbox's refunds of the payment: one record per refund reference the run sent. */
async function withRefunds(
  w: World,
  book: AcquirerBook,
  transactionId: string,
  read: (reference: string) => Promise<SandboxRecord | undefined>,
): Promise<AcquirerBook> {
  for (const reference of [...w.asked].filter((r) => r.startsWith(`${transactionId}-`) && /-\d\d$/.test(r)).sort()) {
    const rec = await read(reference);
    if (rec?.op === 'refund') book.refunds.push({ reference, amount: rec.amount ?? 0, failed: rec.outcome?.ok !== true });
  }
  return book;
}
