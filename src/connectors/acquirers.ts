import { z } from 'zod';
import type { Account } from '../core/records/directory.js';
import type { AcquirerLedger } from '../core/ports/acquirer-ledger.js';
import { connectorAccountKey, type CardConnector } from '../core/ports/card-connector.js';
import type { AcquirerWebhooks, WebhookAcquirer } from '../core/ports/acquirer-webhooks.js';
import { accountJournal, type AcquirerJournal } from '../core/acquirers/journal.js';

/** docs/connectors.md: an account's acquirer settings in `routing`; credentials are named, never written, in the file. */
export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must name an environment variable');
export const apiBase = z.union([z.literal(''), z.url()]).optional();

export interface AcquirerContext {
  env: Readonly<Record<string, string | undefined>>;
  /** the acquirer ledger (the store): each account's journal sits with its merchant's payments */
  ledger: AcquirerLedger;
  now: () => number;
  /** the gateway's public base address (Adyen's returnUrl) */
  baseUrl: string;
}

/** A connector made for one account, with its credentials: it takes the acquirer's webhooks to that account. */
export type AcquirerConnector = CardConnector & { readonly webhooks: AcquirerWebhooks };

/**
 * An acquirer the gateway connects to per account (docs/connectors.md, "Adding an acquirer"): its `routing`
 * fields and how an account's connector is made from them. compose.ts registers each one.
 */
export interface AcquirerKind<R extends { connector_code: string } = { connector_code: string }> {
  code: string;
  displayName: string;
  routing: z.ZodType<R>;
  /** `secret(variable)`: the environment variable's value, refused at start when unset */
  make(routing: R, secret: (variable: string) => string, journal: AcquirerJournal, ctx: AcquirerContext): AcquirerConnector;
}

/** Thrown for an account whose acquirer settings are incomplete: the message names the account and what is missing. */
export class AcquirerSettingsError extends Error {}

/**
 * Makes each acquirer account's own connector from its settings and the environment. Every missing or wrong
 * setting is refused here, at start, naming the account and the field or variable.
 */
export function acquirerConnectors(
  kinds: readonly AcquirerKind[],
  accounts: Account[],
  ctx: AcquirerContext,
): Map<string, AcquirerConnector> {
  const byCode = new Map(kinds.map((k) => [k.code, k]));
  const made = new Map<string, AcquirerConnector>();
  for (const account of accounts) {
    const code = account.routing.connector_code;
    const kind = byCode.get(code);
    if (!kind) continue;
    const name = `account ${account.merchant_id}/${account.account_id}`;
    const secret = (variable: string): string => {
      const value = ctx.env[variable];
      if (!value) throw new AcquirerSettingsError(`${name}: environment variable ${variable} (routing of connector ${code}) is not set`);
      return value;
    };
    const parsed = kind.routing.safeParse(account.routing);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AcquirerSettingsError(`${name}: routing.${issue.path.join('.')} ${issue.message} (connector ${code}, docs/connectors.md)`);
    }
    const journal = accountJournal(ctx.ledger, ctx.now, account);
    made.set(connectorAccountKey(account), kind.make(parsed.data, secret, journal, ctx));
  }
  return made;
}

/** The acquirers' webhook registrations (CoreDeps.acquirers): each account's webhooks are its own connector's. */
export function webhookAcquirers(
  kinds: readonly AcquirerKind[],
  made: ReadonlyMap<string, AcquirerConnector>,
): Map<string, WebhookAcquirer> {
  return new Map(
    kinds.map((k) => [
      k.code,
      {
        code: k.code,
        displayName: k.displayName,
        webhooksOf: (account) => {
          const own = made.get(connectorAccountKey(account));
          return own?.code === k.code ? own.webhooks : undefined;
        },
      },
    ]),
  );
}
