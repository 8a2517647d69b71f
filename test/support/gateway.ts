import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { Express } from 'express';
import { loadConfig, type Config } from '../../src/config.js';
import { composeCore, type ComposeOverrides } from '../../src/compose.js';
import { createApp } from '../../src/app.js';
import { coreLogger, createLogger } from '../../src/logger.js';
import type { CoreDeps } from '../../src/core/ports/deps.js';
import type { MerchantsFile } from '../../src/core/records/directory.js';
import { LOG_DIR } from './paths.js';
import { dumpMemoryStore } from './memory-dump.js';
import { CARDS, TEST_SECURITY_CODE } from './cards.js';
import { FIELDS, signBody } from './sign.js';

export const MERCHANT_ID = '1000001';
export const ACCOUNT_ID = '1000001001';
/** an account of the same merchant with capture_mode auto */
export const AUTO_ACCOUNT_ID = '1000001002';
export const SIGN_KEY = 'test-sign-key-0001';
export const AUTO_SIGN_KEY = 'test-sign-key-0002';
export const VAULT_KEY_HEX = 'a1'.repeat(32);

export function testMerchants(): MerchantsFile {
  return {
    merchants: [
      {
        merchant_id: MERCHANT_ID,
        name: 'Test Shop',
        accounts: [
          {
            account_id: ACCOUNT_ID,
            sign_key: SIGN_KEY,
            website: 'https://shop.example',
            storefront_domains: ['https://shop.example'],
            allowed_ips: ['127.0.0.1', '::1', '::ffff:127.0.0.1'],
            capture_mode: 'manual',
            currencies: ['USD', 'EUR', 'JPY'],
            routing: { connector_code: 'sandbox' },
            // the card page offers proven shoppers their saved cards (docs/checkout.md#saved-cards-for-returning-shoppers); nothing without a proven shopper_id
            saved_cards: true,
          },
          {
            account_id: AUTO_ACCOUNT_ID,
            sign_key: AUTO_SIGN_KEY,
            website: 'https://auto.example',
            capture_mode: 'auto',
            currencies: [],
          },
        ],
      },
    ],
  } as unknown as MerchantsFile;
}

export interface TestGateway {
  app: Express;
  deps: CoreDeps;
  config: Config;
  close(): Promise<void>;
}

export interface GatewayOptions extends ComposeOverrides {
  /** names the log file under test-artifacts/logs */
  name: string;
  redisUrl?: string;
  merchants?: MerchantsFile;
  env?: Record<string, string>;
}

/** A gateway as main builds it (config from environment and merchants file), logging to a file the scan reads. */
export function makeGateway(opts: GatewayOptions): TestGateway {
  const dir = join(tmpdir(), `gw-test-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify(opts.merchants ?? testMerchants()));
  const config = loadConfig({
    MERCHANTS_FILE: merchantsFile,
    VAULT_KEY: VAULT_KEY_HEX,
    NOTIFY_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'debug',
    BASE_URL: 'http://gateway.test',
    ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}),
    ...opts.env,
  });
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createLogger('debug', pino.destination({ dest: join(LOG_DIR, `${opts.name}.log`), sync: true }));
  const deps = composeCore(config, coreLogger(log), opts);
  const app = createApp(deps, {
    trustProxy: config.trustProxy,
    operatorName: config.operatorName,
    operatorLogo: config.operatorLogo,
    metricsAllow: config.metricsAllow ?? [],
    store: config.redisUrl ? 'redis' : 'memory',
  });
  return {
    app,
    deps,
    config,
    close: async () => {
      if (!opts.redisUrl) dumpMemoryStore(deps, opts.name);
      await deps.store.close();
    },
  };
}

/** The order part shared by test payment requests (authorise and checkout): valid, no card data. */
export function testOrder(prefix: string): Record<string, unknown> {
  return {
    merchant_id: MERCHANT_ID,
    account_id: ACCOUNT_ID,
    order_no: `${prefix}-${randomUUID()}`,
    currency: 'USD',
    amount: '10.00',
    item_total: '10.00',
    items: 'T-shirt#,#SKU-1#,#5.00#,#2',
    shopper_email: 'shopper@example.com',
    shopper_ip: '203.0.113.7',
    first_name: 'Ada',
    last_name: 'Lovelace',
  };
}

/** Drops the fields an override set to undefined, then signs with the call's fields. */
export function signedRequest(
  body: Record<string, unknown>,
  fields: readonly string[],
  key: string,
): Record<string, unknown> & { encryption_data: string } {
  for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
  return signBody(body, fields, key);
}

/** A complete, valid, signed /v1/authorise body for the approved test card; overrides are re-signed. */
export function authoriseBody(
  overrides: Record<string, unknown> = {},
  key = SIGN_KEY,
): Record<string, unknown> & { encryption_data: string } {
  const body: Record<string, unknown> = {
    ...testOrder('ORD'),
    card: CARDS.approved,
    expiration_month: '12',
    expiration_year: '2034',
    security_code: TEST_SECURITY_CODE,
    open3d: 'no3DS',
    token_flag: 'NO',
    billing_country: 'GB',
    ...overrides,
  };
  return signedRequest(body, FIELDS.authorise, key);
}
