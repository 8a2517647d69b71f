import { randomBytes } from 'node:crypto';
import type { AcquirerLedger } from '../ports/acquirer-ledger.js';
import type { AcquirerStatus } from '../ports/card-connector.js';
import { referenceKind } from '../payments/claim.js';

// where the references are made (payments/claim.ts); the connectors and the events' flow read them here
export { referenceKind };

/**
 * The journal of a real connector: what it keeps of its own calls, in the acquirer ledger (the store, in the merchant's slot):
 * that a reference was sent (written before the request leaves, so a reference without it was never sent:
 * a definite "no record"), the acquirer's object for it (a Stripe PaymentIntent, an Adyen PSP reference) and
 * the first answer the acquirer gave, by its synchronous reply or by its webhook. Each is write-once, and kept
 * per account: what one account's webhook says never lands in another account's records.
 */
export class AcquirerJournal {
  constructor(
    private readonly ledger: AcquirerLedger,
    /** the connector's code: its records never mix with another connector's under one reference */
    private readonly code: string,
    private readonly now: () => number,
    /**
     * the account whose connector this is: its records' keys name it. Records kept before they did (per
     * merchant) are still read, and their first word still stands
     */
    private readonly account?: string,
  ) {}

  /** Notes that `reference` is about to be sent, and when (the first time). Answers the first time it was sent. */
  async sending(reference: string): Promise<number> {
    return Number(await this.record(this.key(reference, 'sent'), String(this.now())));
  }

  /**
   * Notes an attempt at sending `reference`, before the request leaves (so a crash after it counts as maybe
   * received); answers the attempt's number (1 for the first). With `notReceived`, what `mayHaveReached` reads.
   */
  async attempt(reference: string): Promise<number> {
    await this.sending(reference);
    const mark = `${this.now()}:${randomBytes(6).toString('base64url')}`;
    for (let n = 1; ; n++) if ((await this.record(this.key(reference, `try${n}`), mark)) === mark) return n;
  }

  /** Notes that attempt `n` never reached the acquirer: its connection was refused, so no byte of it left. */
  async notReceived(reference: string, n: number): Promise<void> {
    await this.record(this.key(reference, `try${n}:refused`), String(this.now()));
  }

  /**
   * False only when the acquirer definitely never received a request under `reference`: never sent, or every
   * attempt refused at connect. An attempt without that mark (an answer lost, a crash while sending) may have.
   */
  async mayHaveReached(reference: string): Promise<boolean> {
    for (let n = 1; ; n++) {
      // no attempt n: every earlier one was refused; a reference sent before attempts were counted may have
      if ((await this.lookup(this.key(reference, `try${n}`))) === undefined) return n === 1 && (await this.sentAt(reference)) !== undefined;
      if ((await this.lookup(this.key(reference, `try${n}:refused`))) === undefined) return true;
    }
  }

  /** When `reference` was first sent; undefined when it never was. */
  async sentAt(reference: string): Promise<number | undefined> {
    const at = await this.lookup(this.key(reference, 'sent'));
    return at === undefined ? undefined : Number(at);
  }

  /**
   * The acquirer's own object for a reference (first one kept). The first reference an object is kept under
   * (its authorisation's) is kept for it too: `referenceOf` finds the payment of an event that names only the
   * object (a Stripe dispute names its intent).
   */
  async object(reference: string, id?: string): Promise<string | undefined> {
    if (id === undefined) return this.lookup(this.key(reference, 'object'));
    const first = await this.record(this.key(reference, 'object'), id);
    if (first === id) await this.record(this.key(id, 'reference'), reference);
    return first;
  }

  /** The first gateway reference the acquirer's object `id` was kept under. */
  referenceOf(id: string): Promise<string | undefined> {
    return this.lookup(this.key(id, 'reference'));
  }

  /** The acquirer's first final answer under a reference (its reply or its webhook, whichever came first). */
  async answered(reference: string, status: NonNullable<AcquirerStatus>): Promise<NonNullable<AcquirerStatus>> {
    return JSON.parse(await this.record(this.key(reference, 'answer'), JSON.stringify(status))) as NonNullable<AcquirerStatus>;
  }

  async answer(reference: string): Promise<AcquirerStatus> {
    const kept = await this.lookup(this.key(reference, 'answer'));
    return kept === undefined ? undefined : (JSON.parse(kept) as NonNullable<AcquirerStatus>);
  }

  /** True once an acquirer event (webhook) was applied. */
  async eventSeen(eventId: string): Promise<boolean> {
    return (await this.lookup(this.eventKey(eventId))) !== undefined;
  }

  /** Marks an acquirer event as applied (after it was: a crash between the two applies it again, harmlessly). */
  async markEvent(eventId: string): Promise<void> {
    await this.record(this.eventKey(eventId), String(this.now()));
  }

  private eventKey(eventId: string): Key {
    const own = `${this.code}-event:${eventId}`;
    return this.account === undefined ? { key: own } : { key: `${this.code}-event:${this.account}:${eventId}`, former: own };
  }

  private key(reference: string, what: string): Key {
    const own = `${this.code}:${reference}#${what}`;
    return this.account === undefined ? { key: own } : { key: `${this.code}:${this.account}:${reference}#${what}`, former: own };
  }

  /** Write-once: a record kept under the key's former (per-merchant) form is the first, and nothing is written. */
  private async record(k: Key, data: string): Promise<string> {
    if (k.former !== undefined) {
      const before = await this.ledger.ledgerLookup(k.former);
      if (before !== undefined) return before;
    }
    return this.ledger.ledgerRecord(k.key, data);
  }

  private async lookup(k: Key): Promise<string | undefined> {
    return (await this.ledger.ledgerLookup(k.key)) ?? (k.former === undefined ? undefined : this.ledger.ledgerLookup(k.former));
  }
}

/**
 * An acquirer account's journal: its records in its merchant's acquirer ledger, under the account's connector
 * code and its own id. The account's connector writes it (src/connectors) and its webhooks' events are applied
 * to it (acquirer-events.ts): both are made here, so both read and write the same records.
 */
export function accountJournal(
  ledger: AcquirerLedger,
  now: () => number,
  account: { merchant_id: string; account_id: string; routing: { connector_code: string } },
): AcquirerJournal {
  return new AcquirerJournal(ledger.ledgerOf?.(account.merchant_id) ?? ledger, account.routing.connector_code, now, account.account_id);
}

/** A journal record's key, and the per-merchant form an earlier version kept it under. */
interface Key {
  key: string;
  former?: string;
}

/** Thrown when the acquirer cannot say what it did: the outcome is unknown, never "no". */
export class AcquirerUnreachable extends Error {
  constructor(connector: string, cause: unknown) {
    super(`${connector}: the acquirer did not answer (${cause instanceof Error ? cause.message : String(cause)})`);
    this.name = 'AcquirerUnreachable';
  }
}

/**
 * The connection was refused (or the host not found): no byte of the request left, so the acquirer never
 * received it. Node's error code, where an SDK wraps it (Stripe's `detail`, an HTTPS client's `cause`), or its
 * message where a client wraps the error in its own text.
 */
export function connectRefused(err: unknown): boolean {
  const e = err as { code?: string; message?: string; cause?: { code?: string }; detail?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? e.detail?.code ?? '';
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || /\b(connect ECONNREFUSED|getaddrinfo ENOTFOUND)\b/.test(e.message ?? '');
}
