import { describe, expect, it } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import { signRequest, signSampleNotification, verifyNotification, verifyReturnQuery } from '../src/index.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the SDK signature forms (docs/api.md#signatures)', () => {
  const body = {
    merchant_id: '1000001',
    account_id: '1000001001',
    order_no: 'A 1',
    currency: 'USD',
    amount: '10.00',
    first_name: 'Ada Augusta',
  };

  it('when signing spaces-removed (the gateway’s form), then every space of every value is dropped, missing fields are empty', () => {
    expect(signRequest('checkout', body, 'k').encryption_data).toBe(sha('10000011000001001A1USD10.00AdaAugustak'));
  });

  it('when signing as-sent, then the values keep their spaces', () => {
    expect(signRequest('checkout', body, 'k', 'as-sent').encryption_data).toBe(sha('10000011000001001A 1USD10.00Ada Augustak'));
  });

  it('when signing a batch call, then every transaction_id of its array follows merchant_id and account_id', () => {
    const capture = { merchant_id: 'm', account_id: 'a', capture_orders: [{ transaction_id: 'T1' }, { transaction_id: 'T2' }] };
    expect(signRequest('capture', capture, 'k').encryption_data).toBe(sha('maT1T2k'));
  });
});

describe('signSampleNotification, for merchants’ own tests', () => {
  it('when a sample is signed, then verifyNotification accepts it, and says why it refuses a changed or late one', () => {
    const fields = { merchant_id: 'm', account_id: 'a', notify_type: 'payment', notify_id: 'N1', order_no: 'O1', amount: '10.00' };
    const sample = signSampleNotification(fields, 'k', 1_800_000_000);
    const check = { rawBody: sample.body, xSignature: sample.headers['x-signature'], signKey: 'k', nowSeconds: 1_800_000_010 };
    expect(verifyNotification(check)).toMatchObject({ ok: true, fields: { notify_id: 'N1', amount: '10.00' } });
    expect(verifyNotification({ ...check, rawBody: sample.body.replace('10.00', '99.00') }).reason).toMatch(
      /HMAC-SHA256.*body was changed/,
    );
    expect(verifyNotification({ ...check, nowSeconds: 1_800_000_400 }).reason).toMatch(/400 s away from now \(tolerance 300 s\)/);
    expect(verifyNotification({ ...check, xSignature: undefined }).reason).toBe('X-Signature header is missing');
    expect(verifyNotification({ ...check, signKey: 'other' }).reason).toMatch(/wrong sign_key/);
    // a body with a good HMAC but a wrong encryption_data is still refused
    const body = sample.body.replace(/encryption_data=[0-9a-f]+/, `encryption_data=${'0'.repeat(64)}`);
    const header = `t=1800000000,v1=${createHmac('sha256', 'k').update(`1800000000.${body}`).digest('hex')}`;
    expect(verifyNotification({ ...check, rawBody: body, xSignature: header }).reason).toMatch(/^encryption_data does not match/);
  });

  it('when a return query has no signature, then the verdict says it is missing', () => {
    expect(verifyReturnQuery('order_no=1', { merchantId: 'm', accountId: 'a', signKey: 'k' }).reason).toBe('encryption_data is missing');
  });
});
