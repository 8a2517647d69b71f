import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { CardSummary } from './payment.js';

/** One vault master key and the id sealed texts name it by (VAULT_KEYS `id:key`, or VAULT_KEY as `k0`). */
export interface VaultKey {
  id: string;
  key: Buffer;
}

/** The id of the single key VAULT_KEY gives; list it under this id in VAULT_KEYS when rotating away from it. */
export const DEFAULT_VAULT_KEY_ID = 'k0';
export const VAULT_KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** What a sealed card is bound to: it opens only under the token and merchant it was sealed for. */
export interface VaultBinding {
  token: string;
  merchantId: string;
}

/** The part of a vault record needed to open it. */
export type SealedCard = Pick<VaultRecord, 'sealed' | 'token' | 'merchant_id'>;

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** sealed texts of this format: `v2.<key id>.<base64 of iv + tag + ciphertext>` ('.' is not a base64 character) */
const FORMAT = 'v2';

/** A subkey of a master key for one purpose (HKDF-SHA256), so no key is used both to encrypt and to MAC. */
function subkey(master: Buffer, purpose: 'card encryption' | 'request fingerprint'): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `payment-gateway vault v2: ${purpose}`, 32));
}

function additionalData(keyId: string, b: VaultBinding): Buffer {
  return Buffer.from(JSON.stringify([FORMAT, keyId, b.merchantId, b.token]), 'utf8');
}

/** AES-256-GCM open with the tag length pinned: a cut-down tag is refused, never checked on fewer bytes. */
function decrypt(key: Buffer, raw: Buffer, aad?: Buffer): string {
  if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('sealed card is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  if (aad) decipher.setAAD(aad);
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * Seals and opens card numbers with AES-256-GCM. The security code never reaches here: nothing keeps it.
 *
 * Keys rotate: the vault holds several master keys, newest first; it seals with the newest and opens with
 * the one the sealed text names. Each master key gives separate HKDF subkeys for encryption and for request
 * fingerprints. The token and merchant are bound to the ciphertext as GCM additional data, so a sealed text
 * copied to another token or merchant does not open. Texts sealed before key ids existed (base64 of
 * iv + tag + ciphertext under the raw VAULT_KEY, no additional data) still open: they are tried with each key.
 *
 * Fingerprints (idempotency of order_no, request_id and Idempotency-Key, payer ids) are keyed by the OLDEST
 * key (last in the list), so adding a newer key for sealing leaves every fingerprint as it was.
 */
export class CardVault {
  private readonly sealing: { id: string; key: Buffer };
  private readonly encryption = new Map<string, Buffer>();
  private readonly masters: Buffer[];
  private readonly fingerprintKey: Buffer;

  /** `keys`: newest first; a single Buffer is one key with the id `k0` (VAULT_KEY). */
  constructor(keys: Buffer | readonly VaultKey[]) {
    const list = Buffer.isBuffer(keys) ? [{ id: DEFAULT_VAULT_KEY_ID, key: keys }] : keys;
    if (list.length === 0) throw new Error('the vault needs at least one key');
    for (const k of list) {
      if (k.key.length !== 32) throw new Error(`vault key ${k.id} must be 32 bytes`);
      if (!VAULT_KEY_ID_PATTERN.test(k.id)) throw new Error(`vault key id ${k.id} must be 1 to 32 letters, digits, - or _`);
      if (this.encryption.has(k.id)) throw new Error(`vault key id ${k.id} is listed twice`);
      this.encryption.set(k.id, subkey(k.key, 'card encryption'));
    }
    this.sealing = { id: list[0]!.id, key: this.encryption.get(list[0]!.id)! };
    this.masters = list.map((k) => k.key);
    this.fingerprintKey = subkey(list.at(-1)!.key, 'request fingerprint');
  }

  /** Seals a card number for one token of one merchant, under the newest key. */
  seal(pan: string, binding: VaultBinding): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealing.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(additionalData(this.sealing.id, binding));
    const ct = Buffer.concat([cipher.update(pan, 'utf8'), cipher.final()]);
    return `${FORMAT}.${this.sealing.id}.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
  }

  /** The card number of a vault record; throws when the text was altered, moved, or its key is not configured. */
  open(rec: SealedCard): string {
    const parts = rec.sealed.split('.');
    if (parts.length === 1) return this.openLegacy(Buffer.from(rec.sealed, 'base64'));
    const [format, keyId, body] = parts;
    if (parts.length !== 3 || format !== FORMAT) throw new Error('sealed card has an unknown format');
    const key = this.encryption.get(keyId!);
    if (!key) throw new Error(`sealed card names vault key "${keyId}", which is not configured (VAULT_KEYS)`);
    return decrypt(key, Buffer.from(body!, 'base64'), additionalData(keyId!, { token: rec.token, merchantId: rec.merchant_id }));
  }

  /** Texts sealed before this format: the raw master key, no additional data; any configured key may be it. */
  private openLegacy(raw: Buffer): string {
    let failure: unknown;
    for (const master of this.masters) {
      try {
        return decrypt(master, raw);
      } catch (err) {
        failure = err;
      }
    }
    throw failure instanceof Error ? failure : new Error('sealed card does not open');
  }

  record(token: string, merchantId: string, accountId: string, pan: string, card: CardSummary, now: number): VaultRecord {
    const sealed = this.seal(pan, { token, merchantId });
    return { token, merchant_id: merchantId, account_id: accountId, sealed, card, created_at: now };
  }

  /** Keyed fingerprint of a request, for idempotency comparisons (an HMAC: a card number cannot be guessed back). */
  fingerprint(text: string): string {
    return createHmac('sha256', this.fingerprintKey).update(text, 'utf8').digest('base64url');
  }
}

/** A card in the vault: the number only encrypted (AES-256-GCM), beside what may be shown of it. */
export interface VaultRecord {
  token: string;
  merchant_id: string;
  account_id: string;
  /**
   * `v2.<key id>.<base64 of iv (12 bytes) + auth tag (16 bytes) + ciphertext>`, bound to token and
   * merchant_id; or, sealed before key rotation, the base64 part alone (no key id, nothing bound)
   */
  sealed: string;
  card: CardSummary;
  created_at: number;
}
