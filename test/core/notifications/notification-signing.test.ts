import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { retryGap } from '../../../src/core/notifications/delivery.js';
import { verifyNotificationFields, verifyXSignature, xSignature } from '../../../packages/sdk/src/index.js';
import { FIELDS, sign } from '../../support/sign.js';

const KEY = 'merchant-key-123';

describe('when a merchant checks X-Signature with the shipped helper', () => {
  const body = 'notify_type=payment&notify_id=ntf_1&order_no=A+1';
  const t = 1_800_000_000;
  const mac = createHmac('sha256', KEY).update(`${t}.${body}`).digest('hex');

  it('then a header made by the documented rule passes within the tolerance', () => {
    expect(verifyXSignature(`t=${t},v1=${mac}`, body, KEY, 300, t + 300).ok).toBe(true);
    expect(verifyXSignature(`t=${t},v1=${mac.toUpperCase()}`, Buffer.from(body), KEY, 300, t - 10).ok).toBe(true);
    expect(xSignature(body, KEY, t)).toBe(`t=${t},v1=${mac}`);
  });

  it('then an old timestamp, another body, a missing part or another key fails', () => {
    expect(verifyXSignature(`t=${t},v1=${mac}`, body, KEY, 300, t + 301).ok).toBe(false);
    expect(verifyXSignature(`t=${t},v1=${mac}`, `${body}x`, KEY, 300, t).ok).toBe(false);
    expect(verifyXSignature(`v1=${mac}`, body, KEY, 300, t).ok).toBe(false);
    expect(verifyXSignature(`t=${t}`, body, KEY, 300, t).ok).toBe(false);
    expect(verifyXSignature(undefined, body, KEY, 300, t).ok).toBe(false);
    expect(verifyXSignature(`t=${t + 1},v1=${mac}`, body, KEY, 300, t).ok).toBe(false);
    expect(verifyXSignature(`t=${t},v1=${mac}`, body, 'other-key', 300, t).ok).toBe(false);
  });
});

describe('when a merchant checks encryption_data with the shipped helper', () => {
  it('then the documented rule (docs/notifications.md) over merchant_id, account_id, notify_type, notify_id, order_no passes and a change fails', () => {
    const fields = { merchant_id: 'M1', account_id: 'A1', notify_type: 'payment', notify_id: 'ntf_9', order_no: 'ORDER 7', amount: '1.00' };
    const signed = {
      ...fields,
      encryption_data: sign(
        FIELDS.notification.map((f) => fields[f as keyof typeof fields]),
        KEY,
      ),
    };
    expect(verifyNotificationFields(signed, KEY).ok).toBe(true);
    expect(verifyNotificationFields({ ...signed, notify_id: 'ntf_8' }, KEY).ok).toBe(false);
    expect(verifyNotificationFields({ ...signed, encryption_data: '' }, KEY).ok).toBe(false);
  });

  it('then a payout notification is checked over its request_id in the place of order_no', () => {
    const fields = {
      merchant_id: 'M1',
      account_id: 'A1',
      notify_type: 'payout',
      notify_id: 'ntf_5',
      request_id: 'PO-1',
      status: 'COMPLETED',
    };
    const signed = { ...fields, encryption_data: sign(['M1', 'A1', 'payout', 'ntf_5', 'PO-1'], KEY) };
    expect(verifyNotificationFields(signed, KEY).ok).toBe(true);
    expect(verifyNotificationFields({ ...signed, request_id: 'PO-2' }, KEY).ok).toBe(false);
  });
});

describe('when a delivery fails again and again', () => {
  it('then the gap doubles from 1 s, jitter adds at most 20 %, and it never exceeds 12 h', () => {
    expect([1, 2, 3, 4].map((n) => retryGap(n, () => 0))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryGap(1, () => 0.999)).toBeLessThanOrEqual(1200);
    expect(retryGap(3, () => 0.5)).toBe(4400);
    expect(retryGap(17, () => 0)).toBe(12 * 3_600_000);
    expect(retryGap(40, () => 0.999)).toBe(12 * 3_600_000);
  });
});
