import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { REQUEST_SIGNATURE_FIELDS, signFields, signValues } from '../src/core/kernel/signing.js';

export const SIGN_KEY = 'bench-sign-key-0001';
export const M = '1000001';
export const A = '1000001001';

/** The order part shared by an authorise and a checkout: about 60 fields, as a shop's plug-in sends them. */
function order(): Record<string, unknown> {
  return {
    merchant_id: M,
    account_id: A,
    order_no: `B-${randomUUID()}`,
    currency: 'USD',
    amount: '25.00',
    item_total: '25.00',
    items: 'Mug#,#SKU-7#,#12.50#,#2',
    website: 'https://shop.example',
    shopper_email: 'bench@example.com',
    shopper_ip: '203.0.113.9',
    shopper_id: 'u-1',
    first_name: 'Ada',
    last_name: 'Lovelace',
    token_flag: 'NO',
    billing_country: 'GB',
    billing_city: 'London',
    billing_address: '1 Street',
    billing_postal_code: 'N1 1AA',
    delivery_country: 'GB',
    os: 'Linux',
    browser: 'Chromium',
    browser_lang: 'en-GB',
    time_zone: '0',
    resolution: '1920x1080',
    color_depth: '24',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) bench',
    accept: 'text/html',
    device_type: 'PC',
    order_type: 'WEB',
    checkout_time: 1763700000,
    cart_items: [
      {
        basic_item_data: {
          name: 'Mug',
          quantity: '2',
          type: 'physical',
          category: 'home',
          productId: 'SKU-7',
          price: { amount_usd: 12.5, amount_local_currency: 12.5, currency: 'USD' },
        },
      },
    ],
  };
}

/** A signed POST /v1/authorise body: approved sandbox card, a fresh order_no. */
export function authoriseBody(): string {
  const b: Record<string, unknown> = {
    ...order(),
    card: '4242424242424242',
    expiration_month: '12',
    expiration_year: '2034',
    security_code: '737',
    open3d: 'no3DS',
  };
  b.encryption_data = signFields(b, REQUEST_SIGNATURE_FIELDS.authorise, SIGN_KEY);
  return JSON.stringify(b);
}

/** A signed POST /v1/checkout body (no card data): answered by the loading page and its hidden fields. */
export function checkoutBody(): string {
  const b: Record<string, unknown> = {
    ...order(),
    open3d: 'do3DS',
    return_url: 'https://shop.example/return',
    cancel_url: 'https://shop.example/cancel',
  };
  b.encryption_data = signFields(b, REQUEST_SIGNATURE_FIELDS.checkout, SIGN_KEY);
  return JSON.stringify(b);
}

/** The baseline's body: a 2 KB JSON object of strings. */
export function bareBody(): string {
  const filler: Record<string, string> = {};
  for (let i = 0; JSON.stringify(filler).length < 2000; i++) filler[`field_${i}`] = `value-${i}-${'x'.repeat(20)}`;
  return JSON.stringify(filler).slice(0, 2048);
}

export interface Order {
  transaction_id: string;
  order_no: string;
}

/** Authorises `count` payments through the API and returns what a capture needs of each. */
export async function authorisedOrders(url: string, count: number): Promise<Order[]> {
  const orders: Order[] = [];
  const bodies = Array.from({ length: count }, authoriseBody);
  let next = 0;
  await autocannon({
    url,
    connections: 50,
    amount: count,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: bodies[next++] }),
        onResponse: (_status, body) => {
          const txn = /<transaction_id>([^<]+)</.exec(body)?.[1];
          const order = /<order_no>([^<]+)</.exec(body)?.[1];
          if (txn && order && body.includes('<order_status>1<')) orders.push({ transaction_id: txn, order_no: order });
        },
      },
    ],
  });
  return orders;
}

/** Capture bodies of 50 orders each, signed over merchant_id, account_id and every transaction_id. */
export function captureBodies(orders: Order[]): string[] {
  const bodies: string[] = [];
  for (let i = 0; i + 50 <= orders.length; i += 50) {
    const capture_orders = orders.slice(i, i + 50).map((o) => ({ ...o, currency: 'USD', amount: '25.00' }));
    const encryption_data = signValues([M, A, ...capture_orders.map((o) => o.transaction_id)], SIGN_KEY);
    bodies.push(JSON.stringify({ merchant_id: M, account_id: A, capture_orders, encryption_data }));
  }
  return bodies;
}
