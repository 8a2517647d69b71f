import { randomUUID } from 'node:crypto';
import type { MerchantsFile } from '../../src/core/records/directory.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, testMerchants } from './gateway.js';
import { FIELDS, signBody } from './sign.js';

/** The test merchants with an opening deposit balance (hundredths) on the main account. */
export function payoutMerchants(balance: Record<string, number> = { USD: 10_000_000, EUR: 5_000_000 }): MerchantsFile {
  const file = testMerchants();
  const account = file.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>;
  account.deposit_balance = balance;
  return file;
}

/** Every field of the payout request (docs/payouts.md), with sample values. */
export function samplePayout(): Record<string, unknown> {
  return {
    merchant_id: MERCHANT_ID,
    account_id: ACCOUNT_ID,
    beneficiary: {
      first_name: 'Wei',
      last_name: 'Zhang',
      company_name: 'Acme Trading Ltd',
      date_of_birth: '1985-04-12',
      entity_type: 'COMPANY',
      address: {
        city: 'Shanghai',
        country_code: 'CN',
        postcode: '200001',
        state: 'Shanghai',
        street: 'Nanjing Road',
        number: '100',
        street_address: '100 Nanjing Road',
        complement: 'Floor 5',
      },
      person_documents: [
        { file_type: 'application/pdf', file_url: 'https://files.example/registration.pdf', labels: ['registration', 'company'] },
      ],
      additional_info: {
        business_area: 'Wholesale',
        business_phone_number: '+86 21 5555 0000',
        business_registration_number: '91310000MA1K',
        personal_email: 'wei.zhang@acme.example',
        personal_id_number: 'ID-3101-0119-8504',
        personal_id_type: 'CHINESE_NATIONAL_ID',
        personal_mobile_number: '+86 138 0000 0000',
        personal_net_monthly_average_income: '30000',
        personal_phone_country_code: '86',
        personal_phone_area_code: '21',
        personal_fiscal_country: 'CN',
      },
      bank_details: {
        account_currency: 'USD',
        account_name: 'Acme Trading Ltd',
        owner_document_number: '91310000MA1K',
        account_number: '1001-2233-4455',
        bank_account_category: 'Checking,Business',
        bank_branch: 'Pudong',
        bank_country_code: 'CN',
        bank_code: '102',
        bank_name: 'ICBC',
        bank_street_address: '55 Fuxingmen Street',
        binding_mobile_number: '+86 138 0000 0000',
        iban: '',
        swift_code: 'ICBKCNBJ',
        transaction_reference: 'INV-2026-001',
      },
    },
    beneficiary_id: 'BEN-0001',
    client_data: 'batch=7',
    fee_paid_by: 'PAYER',
    payer: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      company_name: 'Test Shop Ltd',
      date_of_birth: '1980-12-10',
      entity_type: 'COMPANY',
      address: { city: 'London', country_code: 'GB', postcode: 'EC1A 1BB', state: 'London', street_address: '1 King Street' },
      additional_info: {
        business_registration_number: '01234567',
        business_registration_type: 'LIMITED_COMPANY',
        external_id: 'payer-42',
        personal_email: 'ada@shop.example',
        personal_id_number: 'AB123456C',
        job: 'Director',
      },
    },
    payment_amount: '1000.00',
    payment_currency: 'USD',
    payment_date: '2026-11-21',
    payment_method: 'SWIFT',
    reason: 'Invoice payment',
    reference: 'INV-2026-001',
    request_id: randomUUID(),
    source_amount: '',
    source_currency: 'USD',
    swift_charge_option: 'SHARED',
    fund_source: 'DepositAccount',
    notify_url: 'https://merchant.example/payout-notify',
  };
}

/** Sets (or, with undefined, removes) a field named by a dotted path, e.g. "beneficiary.bank_details.iban". */
export function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = body;
  for (const p of parts.slice(0, -1)) node = node[p] as Record<string, unknown>;
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

/** A signed payout request: the sample with dotted-path changes applied, then signed. */
export function payoutBody(changes: Record<string, unknown> = {}, key = SIGN_KEY): Record<string, unknown> & { encryption_data: string } {
  const body = samplePayout();
  for (const [path, value] of Object.entries(changes)) setPath(body, path, value);
  return signBody(body, FIELDS.payout, key);
}

/** A signed /v1/payout/query body (merchant_id, account_id, request_id, transaction_id). */
export function payoutQueryBody(by: { request_id?: string; transaction_id?: string }, key = SIGN_KEY): Record<string, unknown> {
  const body = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, ...by };
  return signBody(body, FIELDS.payoutQuery, key);
}
