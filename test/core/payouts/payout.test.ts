import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../../support/gateway.js';
import { payoutBody, payoutMerchants, payoutQueryBody, samplePayout } from '../../support/payout.js';
import { sign } from '../../support/sign.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));

const gw = gatewayOnRedis('payout', { clock, merchants: payoutMerchants() });

const post = (body: unknown, path = '/v1/payout') =>
  request(gw.app).post(path).set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));

const ANSWER_KEYS = [
  'merchant_id',
  'account_id',
  'beneficiary',
  'beneficiary_id',
  'client_data',
  'fee_paid_by',
  'payer',
  'payment_amount',
  'payment_currency',
  'payment_date',
  'payment_method',
  'reason',
  'reference',
  'request_id',
  'source_amount',
  'source_currency',
  'swift_charge_option',
  'fund_source',
  'notify_url',
  'amount_beneficiary_receives',
  'amount_payer_pays',
  'fee_amount',
  'fee_currency',
  'created_at',
  'last_updated_at',
  'failure_reason',
  'failure_type',
  'payer_id',
  'transaction_id',
  'short_reference_id',
  'status',
  'encryption_data',
];

describe('when a payout request with every field is sent', () => {
  it("then the answer echoes every field as docs/payouts.md shows it and adds the payout's own fields", async () => {
    const body = payoutBody();
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    const a = res.body;
    expect(Object.keys(a)).toEqual(ANSWER_KEYS);
    const sample = samplePayout() as unknown as Record<string, unknown> & {
      beneficiary: { bank_details: Record<string, unknown> };
      payer: unknown;
    };
    const { bank_code: _c, ...bankSent } = sample.beneficiary.bank_details;
    expect(a.beneficiary).toEqual({ ...sample.beneficiary, bank_details: { ...bankSent, local_clearing_system: 'SWIFT' } });
    expect(a.beneficiary.bank_details).not.toHaveProperty('bank_code');
    expect(a.payer).toEqual(sample.payer);
    for (const k of [
      'beneficiary_id',
      'client_data',
      'fee_paid_by',
      'payment_amount',
      'payment_currency',
      'payment_date',
      'payment_method',
      'reason',
      'reference',
      'source_amount',
      'source_currency',
      'swift_charge_option',
      'fund_source',
      'notify_url',
    ]) {
      expect(a[k], k).toBe(sample[k]);
    }
    expect(a.request_id).toBe(body.request_id);
    // SWIFT SHARED, fees paid by the payer: 0.50% + 15.00 on the payer, 10.00 correspondent fee on the beneficiary
    expect(a.amount_payer_pays).toBe(1020);
    expect(a.amount_beneficiary_receives).toBe(990);
    expect(a.fee_amount).toBe(30);
    expect(a.fee_currency).toBe('USD');
    expect(a.created_at).toBe('2026-11-21T10:00:00+0000');
    expect(a.last_updated_at).toBe('2026-11-21T10:00:00+0000');
    expect(a).toMatchObject({ status: 'PENDING', failure_reason: '', failure_type: '' });
    expect(a.payer_id).toMatch(/^pyr_/);
    expect(a.transaction_id).toMatch(/^\w{12,}$/);
    expect(a.short_reference_id).toMatch(/^P\d{6}-\w{8}$/);
    expect(a.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, body.request_id, 'PENDING'], SIGN_KEY));
    const balance = await gw.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'USD');
    expect(balance?.available).toBe(10_000_000 - 102_000);
  });

  it('when the amounts are not whole, then they are JSON numbers with their exact value', async () => {
    const res = await post(
      payoutBody({
        payment_method: 'LOCAL',
        swift_charge_option: '',
        payment_amount: '123.45',
        'beneficiary.bank_details.bank_country_code': 'US',
      }),
    );
    expect(res.status).toBe(200);
    // LOCAL: 0.20% of 123.45 = 0.2469 -> 0.25, plus 1.00
    expect(res.body.amount_payer_pays).toBe(124.7);
    expect(res.body.amount_beneficiary_receives).toBe(123.45);
    expect(res.body.fee_amount).toBe(1.25);
    expect(res.body.beneficiary.bank_details.local_clearing_system).toBe('ACH');
    expect(res.body.payment_amount).toBe('123.45');
  });

  it('when only source_amount is given, then payment side follows from the rate table', async () => {
    const res = await post(
      payoutBody({
        payment_amount: '',
        source_amount: '92.00',
        source_currency: 'EUR',
        payment_method: 'LOCAL',
        swift_charge_option: '',
        fee_paid_by: 'BENEFICIARY',
        'beneficiary.bank_details.bank_country_code': 'US',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      payment_amount: '',
      source_amount: '92.00',
      amount_payer_pays: 92,
      amount_beneficiary_receives: 98.8,
      fee_amount: 1.1,
      fee_currency: 'EUR',
    });
  });
});

describe('when a field is wrong, then the payout is refused naming it', () => {
  it.each([
    ['request_id', 'not-a-uuid', 'INVALID_FIELD', 'request_id'],
    ['request_id', undefined, 'MISSING_FIELD', 'request_id'],
    ['payment_date', '2026-02-30', 'INVALID_FIELD', 'payment_date'],
    ['payment_date', '21-11-2026', 'INVALID_FIELD', 'payment_date'],
    ['payment_date', '2026-11-20', 'INVALID_FIELD', 'payment_date'],
    ['payment_amount', '10.001', 'INVALID_FIELD', 'payment_amount'],
    ['payment_amount', '+10', 'INVALID_FIELD', 'payment_amount'],
    ['payment_amount', '0.00', 'INVALID_FIELD', 'payment_amount'],
    ['payment_amount', 1000, 'INVALID_FIELD', 'payment_amount'],
    ['source_amount', '1.5e2', 'INVALID_FIELD', 'source_amount'],
    ['source_amount', '900.00', 'INVALID_FIELD', 'source_amount'],
    ['payment_currency', 'XYZ', 'INVALID_FIELD', 'payment_currency'],
    ['source_currency', undefined, 'MISSING_FIELD', 'source_currency'],
    ['source_currency', 'XAU', 'INVALID_FIELD', 'source_currency'],
    ['fee_paid_by', 'ME', 'INVALID_FIELD', 'fee_paid_by'],
    ['fee_paid_by', undefined, 'MISSING_FIELD', 'fee_paid_by'],
    ['payment_method', 'WIRE', 'INVALID_FIELD', 'payment_method'],
    ['swift_charge_option', 'HALF', 'INVALID_FIELD', 'swift_charge_option'],
    ['swift_charge_option', '', 'INVALID_FIELD', 'swift_charge_option'],
    ['fund_source', 'CardBalance', 'INVALID_FIELD', 'fund_source'],
    ['notify_url', 'not a url', 'INVALID_FIELD', 'notify_url'],
    ['beneficiary', 'Acme', 'INVALID_FIELD', 'beneficiary'],
    ['beneficiary', undefined, 'MISSING_FIELD', 'beneficiary'],
    ['beneficiary.entity_type', 'ALIEN', 'INVALID_FIELD', 'beneficiary.entity_type'],
    ['beneficiary.company_name', '', 'INVALID_FIELD', 'beneficiary.company_name'],
    ['beneficiary.date_of_birth', '1985-13-01', 'INVALID_FIELD', 'beneficiary.date_of_birth'],
    ['beneficiary.address', undefined, 'MISSING_FIELD', 'beneficiary.address'],
    ['beneficiary.address.country_code', 'China', 'INVALID_FIELD', 'beneficiary.address.country_code'],
    ['beneficiary.person_documents', 'doc.pdf', 'INVALID_FIELD', 'beneficiary.person_documents'],
    ['beneficiary.person_documents.0.file_type', 'pdf', 'INVALID_FIELD', 'beneficiary.person_documents.0.file_type'],
    ['beneficiary.person_documents.0.file_url', 'ftp://files.example/a.pdf', 'INVALID_FIELD', 'beneficiary.person_documents.0.file_url'],
    ['beneficiary.person_documents.0.labels', 'registration', 'INVALID_FIELD', 'beneficiary.person_documents.0.labels'],
    ['beneficiary.additional_info.personal_email', 'nobody', 'INVALID_FIELD', 'beneficiary.additional_info.personal_email'],
    ['beneficiary.additional_info.personal_fiscal_country', 'CHN', 'INVALID_FIELD', 'beneficiary.additional_info.personal_fiscal_country'],
    ['beneficiary.bank_details', undefined, 'MISSING_FIELD', 'beneficiary.bank_details'],
    ['beneficiary.bank_details.account_name', '', 'MISSING_FIELD', 'beneficiary.bank_details.account_name'],
    ['beneficiary.bank_details.account_number', '', 'INVALID_FIELD', 'beneficiary.bank_details.account_number'],
    ['beneficiary.bank_details.account_currency', 'EUR', 'INVALID_FIELD', 'beneficiary.bank_details.account_currency'],
    [
      'beneficiary.bank_details.bank_account_category',
      'Checking,,Business',
      'INVALID_FIELD',
      'beneficiary.bank_details.bank_account_category',
    ],
    ['beneficiary.bank_details.bank_country_code', 'cn', 'INVALID_FIELD', 'beneficiary.bank_details.bank_country_code'],
    ['beneficiary.bank_details.swift_code', 'XX', 'INVALID_FIELD', 'beneficiary.bank_details.swift_code'],
    ['beneficiary.bank_details.swift_code', '', 'INVALID_FIELD', 'beneficiary.bank_details.swift_code'],
    ['beneficiary.bank_details.iban', 'NL00ABNA0417164300', 'INVALID_FIELD', 'beneficiary.bank_details.iban'],
    ['payer', undefined, 'MISSING_FIELD', 'payer'],
    ['payer.entity_type', undefined, 'MISSING_FIELD', 'payer.entity_type'],
    ['payer.address.country_code', 'United Kingdom', 'INVALID_FIELD', 'payer.address.country_code'],
    ['payer.additional_info.personal_email', 'ada-at-shop', 'INVALID_FIELD', 'payer.additional_info.personal_email'],
    ['payer.date_of_birth', '10-12-1980', 'INVALID_FIELD', 'payer.date_of_birth'],
  ])('when %s is %j, then HTTP 400 %s names %s', async (path, value, code, field) => {
    const res = await post(payoutBody({ [path]: value }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code, field });
    expect(res.body.message.startsWith(`${field}: `)).toBe(true);
  });

  it('when a PERSONAL beneficiary has no last_name, then it is refused naming beneficiary.last_name', async () => {
    const res = await post(payoutBody({ 'beneficiary.entity_type': 'PERSONAL', 'beneficiary.last_name': '' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'beneficiary.last_name' });
  });

  it('when a zero-decimal payment currency carries cents, then payment_amount is refused', async () => {
    const res = await post(
      payoutBody({ payment_currency: 'JPY', payment_amount: '1000.50', 'beneficiary.bank_details.account_currency': '' }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'payment_amount' });
    expect(res.body.message).toMatch(/whole amount: JPY/);
  });

  it('when neither payment_amount nor source_amount is given, then payment_amount is named', async () => {
    const res = await post(payoutBody({ payment_amount: '' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'payment_amount' });
  });

  it('when a valid IBAN replaces the account number, then the payout is accepted', async () => {
    const res = await post(
      payoutBody({ 'beneficiary.bank_details.account_number': '', 'beneficiary.bank_details.iban': 'NL91ABNA0417164300' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.beneficiary.bank_details.iban).toBe('NL91ABNA0417164300');
  });

  it('when the signature is wrong, then HTTP 401 and nothing is recorded', async () => {
    const body: Record<string, unknown> = { ...payoutBody(), encryption_data: sign(['x'], SIGN_KEY) };
    const res = await post(body);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTHENTICATION_FAILED');
    expect(await gw.deps.store.findPayoutByRequest(MERCHANT_ID, ACCOUNT_ID, String(body.request_id))).toBeUndefined();
  });
});

describe('when the same request_id comes again', () => {
  it('then the same content answers the same payout and debits once', async () => {
    const body = payoutBody({ source_currency: 'EUR', payment_currency: 'EUR', 'beneficiary.bank_details.account_currency': 'EUR' });
    const before = (await gw.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'EUR'))?.available ?? 5_000_000;
    const first = await post(body);
    clock.advance(1000);
    const again = await post(body);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const after = await gw.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'EUR');
    expect(after?.available).toBe(before - first.body.amount_payer_pays * 100);
  });

  it('then other content under that request_id is refused with 409 PAYOUT_CONFLICT', async () => {
    const body = payoutBody();
    expect((await post(body)).status).toBe(200);
    const other = payoutBody({ request_id: body.request_id, reason: 'Another reason' });
    const res = await post(other);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'PAYOUT_CONFLICT', field: 'request_id' });
  });

  it('then the same UUID in capitals is the same request_id, never a second payout', async () => {
    const body = payoutBody();
    expect((await post(body)).status).toBe(200);
    const shouted = payoutBody({ request_id: String(body.request_id).toUpperCase() });
    const res = await post(shouted);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'PAYOUT_CONFLICT', field: 'request_id' });
  });
});

describe('when the deposit account does not cover the payout', () => {
  it('then HTTP 422 INSUFFICIENT_BALANCE names the amount, and no payout is recorded', async () => {
    const body = payoutBody({ source_currency: 'GBP' });
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_BALANCE', field: 'payment_amount' });
    expect(res.body.message).toMatch(/holds 0\.00 GBP/);
    const query = await post(payoutQueryBody({ request_id: String(body.request_id) }), '/v1/payout/query');
    expect(query.status).toBe(404);
  });
});

describe('when a payout is queried (POST /v1/payout/query)', () => {
  it('then request_id or transaction_id finds it, signed over request_id and status', async () => {
    const body = payoutBody();
    const created = (await post(body)).body;
    const byRequest = await post(payoutQueryBody({ request_id: created.request_id }), '/v1/payout/query');
    expect(byRequest.status).toBe(200);
    expect(byRequest.body).toEqual(created);
    const byTxn = await post(payoutQueryBody({ transaction_id: created.transaction_id }), '/v1/payout/query');
    expect(byTxn.body.request_id).toBe(created.request_id);
    const both = await post(
      payoutQueryBody({ request_id: created.request_id, transaction_id: created.transaction_id }),
      '/v1/payout/query',
    );
    expect(both.status).toBe(200);
  });

  it.each([
    [{ request_id: '00000000-0000-4000-8000-000000000000' }, 404, 'request_id'],
    [{ transaction_id: 'NOPE' }, 404, 'transaction_id'],
    [{}, 400, 'request_id'],
    [{ request_id: 'abc' }, 400, 'request_id'],
  ])('when it names %j, then HTTP %i names %s', async (by, status, field) => {
    const res = await post(payoutQueryBody(by), '/v1/payout/query');
    expect(res.status).toBe(status);
    expect(res.body.field).toBe(field);
  });

  it('when the signature leaves out the transaction_id sent, then HTTP 401', async () => {
    const body = { ...payoutQueryBody({ request_id: '00000000-0000-4000-8000-000000000000' }), transaction_id: 'X1' };
    const res = await post(body, '/v1/payout/query');
    expect(res.status).toBe(401);
  });
});
