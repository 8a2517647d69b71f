import type { Types } from '@adyen/api-library';
import type { AcquirerWebhooks, WebhookRefusal, WebhookVerification } from '../../core/ports/acquirer-webhooks.js';
import { adyenLibrary } from './library.js';
import { adyenEvent } from './events.js';
import { adyenItemProblem } from './event-shape.js';

type Item = Types.notification.NotificationRequestItem;

/** Why an item is not this account's (its merchant account, then Adyen's HmacValidator); undefined when it is. */
export function itemRefusal(item: Item, merchantAccount: string, hmacKey: string): WebhookRefusal | undefined {
  if (item.merchantAccountCode !== merchantAccount)
    return {
      reason: 'other-account',
      message: `merchantAccountCode: an item names another merchant account than this account’s (${merchantAccount})`,
    };
  return signedWith(item, hmacKey)
    ? undefined
    : { reason: 'bad-signature', message: 'hmacSignature: an item’s signature does not match this account’s HMAC key' };
}

/** Adyen's HmacValidator; an item it cannot even read (no additionalData) is not signed. */
function signedWith(item: Item, hmacKey: string): boolean {
  try {
    return new (adyenLibrary().hmacValidator)().validateHMAC(item, hmacKey);
  } catch {
    return false;
  }
}

const malformed = (message: string): WebhookVerification => ({ ok: false, refusal: { reason: 'malformed', message } });

/**
 * An account's Adyen notifications: a JSON body of notificationItems, each signed with the account's HMAC key
 * and naming its merchant account. Every item must be before any is read (Adyen sends them again until
 * acknowledged with `[accepted]`).
 */
export function adyenWebhooks(merchantAccount: string, hmacKey: string): AcquirerWebhooks {
  return {
    verify(body): WebhookVerification {
      let items: Item[];
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { notificationItems?: { NotificationRequestItem?: Item }[] };
        if (!Array.isArray(parsed?.notificationItems)) throw new Error('no notificationItems');
        items = parsed.notificationItems
          .map((i) => i?.NotificationRequestItem)
          .filter((i): i is Item => Boolean(i) && typeof i === 'object');
      } catch {
        return malformed('body: is not an Adyen notification (JSON)');
      }
      if (items.length === 0) return malformed('notificationItems: the notification has no items');
      for (const item of items) {
        const refusal = itemRefusal(item, merchantAccount, hmacKey);
        if (refusal) return { ok: false, refusal };
      }
      return {
        ok: true,
        acknowledgement: '[accepted]',
        events: items.map((item) => ({
          id: String(item.pspReference),
          type: String(item.eventCode),
          problem: adyenItemProblem(item),
          read: () => adyenEvent(item),
        })),
      };
    },
  };
}
