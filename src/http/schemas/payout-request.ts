import { z } from 'zod';
import { fitsCurrency, parseAmount, wholeUnitsMessage } from '../../core/kernel/money.js';
import { accountId, currencyCode, httpUrl, merchantId, optionalText, positiveAmountText, signature } from './common.js';
import { eitherOf, requiredWhen } from './either-of.js';
import { optionalTestClockId } from './test-clocks.js';

/** Shapes of /v1/payout (docs/payouts.md lists the rules and the sets of values). */
export const ENTITY_TYPES = ['COMPANY', 'PERSONAL'] as const;
export const FEE_PAID_BY = ['PAYER', 'BENEFICIARY'] as const;
export const PAYMENT_METHODS = ['SWIFT', 'LOCAL'] as const;
export const SWIFT_CHARGE_OPTIONS = ['SHARED', 'OUR', 'BEN'] as const;
export const FUND_SOURCES = ['DepositAccount'] as const;

/** zod error text: "is required" when the field is absent, else the shape it must have. */
const need = (shape: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : shape);

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: need(`must be one of ${values.join(', ')}`) });

const blankOr = (schema: z.ZodType<string>) =>
  z
    .union([z.literal(''), schema])
    .optional()
    .default('');

export const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const isoDate = z
  .string({ error: need('must be a date written YYYY-MM-DD') })
  .refine((v) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    if (!m) return false;
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(Date.UTC(y, mo - 1, d));
    return y >= 1900 && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
  }, 'must be a real date written YYYY-MM-DD')
  // what every such date looks like, for the document (the refinement above decides)
  .regex(/^(?:19|[2-9]\d)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/, 'must be a real date written YYYY-MM-DD');

const countryCode = z
  .string({ error: need('must be a string') })
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 two-letter country code such as "GB"');
const email = z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters');

/** IBAN: shape and the ISO 13616 mod-97 check (spaces allowed as sent). */
export function ibanValid(raw: string): boolean {
  const iban = raw.replaceAll(' ', '');
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const dg of digits) rest = (rest * 10 + Number(dg)) % 97;
  }
  return rest === 1;
}

const partyName = { first_name: optionalText(64), last_name: optionalText(64), company_name: optionalText(128) };

const beneficiaryAddress = z.object(
  {
    city: optionalText(64),
    country_code: countryCode,
    postcode: optionalText(16),
    state: optionalText(64),
    street: optionalText(128),
    number: optionalText(16),
    street_address: optionalText(255),
    complement: optionalText(128),
  },
  { error: need('must be an object') },
);

const personDocument = z.object(
  {
    file_type: z
      .string({ error: 'must be a string' })
      .regex(/^[a-z]+\/[a-z0-9.+-]+$/i, 'must be a media type such as "application/pdf"')
      .max(255, 'must be at most 255 characters'),
    file_url: httpUrl,
    labels: z.array(text64(), { error: 'must be an array of strings' }).max(10, 'must have at most 10 labels').optional().default([]),
  },
  { error: need('must be an object') },
);

function text64() {
  return z.string({ error: 'must be a string' }).max(64, 'must be at most 64 characters');
}

const beneficiaryInfo = z.object(
  {
    business_area: optionalText(128),
    business_phone_number: optionalText(32),
    business_registration_number: optionalText(64),
    personal_email: blankOr(email),
    personal_id_number: optionalText(64),
    personal_id_type: optionalText(64),
    personal_mobile_number: optionalText(32),
    personal_net_monthly_average_income: optionalText(32),
    personal_phone_country_code: optionalText(8),
    personal_phone_area_code: optionalText(8),
    personal_fiscal_country: blankOr(countryCode),
  },
  { error: need('must be an object') },
);

const bankDetails = z.object(
  {
    account_currency: blankOr(currencyCode),
    account_name: z.string({ error: 'is required' }).min(1, 'is required').max(128, 'must be at most 128 characters'),
    owner_document_number: optionalText(64),
    account_number: blankOr(z.string().regex(/^[A-Za-z0-9-]{4,34}$/, 'must be 4 to 34 letters, digits or hyphens')),
    bank_account_category: blankOr(
      z
        .string()
        .regex(/^[A-Za-z_]+( *, *[A-Za-z_]+)*$/, 'must be a comma-separated list of categories such as "Checking,Personal"')
        .max(255, 'must be at most 255 characters'),
    ),
    bank_branch: optionalText(64),
    bank_country_code: countryCode,
    bank_code: optionalText(32),
    bank_name: optionalText(128),
    bank_street_address: optionalText(255),
    binding_mobile_number: optionalText(32),
    iban: blankOr(
      z
        .string()
        .refine(ibanValid, 'is not a valid IBAN (shape or check digits)')
        .regex(/^ *[A-Z] *[A-Z] *\d *\d(?: *[A-Z0-9]){11,30} *$/, 'is not a valid IBAN (shape or check digits)')
        .max(64, 'is not a valid IBAN (shape or check digits)')
        .meta({ examples: ['GB82WEST12345698765432'] }),
    ),
    swift_code: blankOr(
      z.string().regex(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'must be a BIC of 8 or 11 characters such as "DEUTDEFF"'),
    ),
    transaction_reference: optionalText(64),
  },
  { error: need('must be an object') },
);

const beneficiary = z.object(
  {
    ...partyName,
    date_of_birth: blankOr(isoDate),
    entity_type: oneOf(ENTITY_TYPES),
    address: beneficiaryAddress,
    person_documents: z
      .array(personDocument, { error: need('must be an array') })
      .max(10, 'must have at most 10 documents')
      .optional()
      .default([]),
    additional_info: beneficiaryInfo.optional().prefault({}),
    bank_details: bankDetails,
  },
  { error: need('must be an object') },
);

const payer = z.object(
  {
    ...partyName,
    date_of_birth: blankOr(isoDate),
    entity_type: oneOf(ENTITY_TYPES),
    address: z
      .object(
        {
          city: optionalText(64),
          country_code: blankOr(countryCode),
          postcode: optionalText(16),
          state: optionalText(64),
          street_address: optionalText(255),
        },
        { error: need('must be an object') },
      )
      .optional()
      .prefault({}),
    additional_info: z
      .object(
        {
          business_registration_number: optionalText(64),
          business_registration_type: optionalText(64),
          external_id: optionalText(64),
          personal_email: blankOr(email),
          personal_id_number: optionalText(64),
          job: optionalText(64),
        },
        { error: need('must be an object') },
      )
      .optional()
      .prefault({}),
  },
  { error: need('must be an object') },
);

const positiveAmount = blankOr(positiveAmountText);

type Party = { entity_type: string; first_name: string; last_name: string; company_name: string };

/** A company is named by company_name, a person by first and last name (beneficiary and payer alike). */
const NAMES = [
  requiredWhen('entity_type', 'COMPANY', ['company_name']),
  requiredWhen('entity_type', 'PERSONAL', ['first_name', 'last_name']),
];
for (const rule of NAMES) [beneficiary, payer].forEach((party) => rule.describe(party));

function requireNames(party: Party, path: string, ctx: z.RefinementCtx): void {
  for (const rule of NAMES) rule.check(party, ctx, [path]);
}

/** The beneficiary's account is named by its number or its IBAN. */
const accountOrIban = eitherOf(['account_number'], ['iban']);
accountOrIban.describe(bankDetails);

/** The payout's amount is given on one side: what the beneficiary gets, or what leaves the deposit. */
const paymentOrSourceAmount = eitherOf(['payment_amount'], ['source_amount']);

export const payoutSchema = z
  .object({
    merchant_id: merchantId,
    account_id: accountId,
    beneficiary,
    beneficiary_id: optionalText(64),
    client_data: optionalText(1024),
    fee_paid_by: oneOf(FEE_PAID_BY),
    payer,
    payment_amount: positiveAmount,
    payment_currency: currencyCode,
    payment_date: isoDate,
    payment_method: oneOf(PAYMENT_METHODS),
    reason: optionalText(255),
    reference: optionalText(140),
    request_id: z.string({ error: 'is required' }).regex(UUID_SHAPE, 'must be a UUID such as "3f2c8a4e-9b1d-4c7e-8f00-1a2b3c4d5e6f"'),
    source_amount: positiveAmount,
    source_currency: currencyCode,
    swift_charge_option: z
      .union([z.literal(''), oneOf(SWIFT_CHARGE_OPTIONS)])
      .optional()
      .default(''),
    fund_source: z
      .union([z.literal(''), oneOf(FUND_SOURCES)])
      .optional()
      .transform((v) => v || 'DepositAccount'),
    notify_url: blankOr(httpUrl),
    /** a test clock of the account (docs/test-clocks.md): the payout's lifecycle then runs in the clock's time */
    test_clock_id: optionalTestClockId,
    encryption_data: signature,
  })
  .superRefine((o, ctx) => {
    requireNames(o.beneficiary, 'beneficiary', ctx);
    requireNames(o.payer, 'payer', ctx);
    const bank = o.beneficiary.bank_details;
    const bankPath = ['beneficiary', 'bank_details'];
    accountOrIban.check(bank, ctx, bankPath);
    if (bank.account_currency && bank.account_currency !== o.payment_currency) {
      ctx.addIssue({ code: 'custom', path: [...bankPath, 'account_currency'], message: 'must equal payment_currency' });
    }
    if (o.payment_method === 'SWIFT') {
      if (!bank.swift_code)
        ctx.addIssue({ code: 'custom', path: [...bankPath, 'swift_code'], message: 'is required when payment_method is SWIFT' });
      if (!o.swift_charge_option)
        ctx.addIssue({
          code: 'custom',
          path: ['swift_charge_option'],
          message: 'is required when payment_method is SWIFT (SHARED, OUR or BEN)',
        });
    }
    paymentOrSourceAmount.check(o, ctx);
    for (const [amount, currency] of [
      ['payment_amount', 'payment_currency'],
      ['source_amount', 'source_currency'],
    ] as const) {
      if (o[amount] && !fitsCurrency(parseAmount(o[amount])!, o[currency])) {
        ctx.addIssue({ code: 'custom', path: [amount], message: wholeUnitsMessage(o[currency]) });
      }
    }
  });
paymentOrSourceAmount.describe(payoutSchema);
export type PayoutRequest = z.output<typeof payoutSchema>;

const requestOrTransaction = eitherOf(['request_id'], ['transaction_id']);

export const payoutQuerySchema = requestOrTransaction.describe(
  z
    .object({
      merchant_id: merchantId,
      account_id: accountId,
      request_id: blankOr(z.string().regex(UUID_SHAPE, 'must be a UUID')),
      transaction_id: optionalText(64),
      encryption_data: signature,
    })
    .superRefine((o, ctx) => requestOrTransaction.check(o, ctx)),
);
