import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { CardSummary } from './payment.js';

/**
 * Seals and opens card numbers with AES-256-GCM under VAULT_KEY. The security code never reaches here:
 * nothing keeps it. The same key also keys fingerprints of requests (an HMAC, so a card number cannot be
 * recovered from a fingerprint by guessing).
 */
export class CardVault {
  constructor(private key: Buffer) {
    if (key.length !== 32) throw new Error('vault key must be 32 bytes');
  }

  seal(pan: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(pan, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  record(token: string, merchantId: string, accountId: string, pan: string, card: CardSummary, now: number): VaultRecord {
    return { token, merchant_id: merchantId, account_id: accountId, sealed: this.seal(pan), card, created_at: now };
  }

  /** Keyed fingerprint of a request, for idempotency comparisons. */
  fingerprint(text: string): string {
    return createHmac('sha256', this.key).update(text, 'utf8').digest('base64url');
  }
}

/** A card in the vault: the number only encrypted (AES-256-GCM), beside what may be shown of it. */
export interface VaultRecord {
  token: string;
  merchant_id: string;
  account_id: string;
  /** base64 of iv (12 bytes) + auth tag (16 bytes) + ciphertext of the card number */
  sealed: string;
  card: CardSummary;
  created_at: number;
}
