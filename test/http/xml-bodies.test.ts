import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { ACCOUNT_ID, makeGateway, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../support/gateway.js';
import { authorise } from '../support/jobs.js';
import { batchBody, pay, ref } from '../support/operations.js';
import { FIELDS, signBody } from '../support/sign.js';
import { parseBodyText } from '../../src/http/middleware/body.js';

/**
 * A /v1 call sent as an XML document (`<request><merchant_id>…`) is read into the fields of its JSON form:
 * a cancelsubscription example may declare application/xml (docs/api.md#bodies), and integrations that take it at its word
 * send XML there.
 */
let gw: TestGateway;
beforeAll(() => {
  gw = makeGateway({ name: 'xml-bodies' });
});
afterAll(() => gw.close());

const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The test's own writer: a member per element, an object's members nested, an array's items repeated. */
function toXml(fields: Record<string, unknown>, root = 'request'): string {
  const element = (name: string, v: unknown): string => {
    if (Array.isArray(v)) return v.map((item) => element(name, item)).join('');
    if (v !== null && typeof v === 'object')
      return `<${name}>\n${Object.entries(v)
        .map(([k, x]) => `  ${element(k, x)}`)
        .join('\n')}\n</${name}>`;
    return `<${name}>${escape(String(v))}</${name}>`;
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, fields)}`;
}

const postXml = (path: string, body: string, type = 'application/xml') => request(gw.app).post(path).set('Content-Type', type).send(body);

/** A daily subscription made by a payment, and the signed cancelsubscription of it. */
async function subscribedAndItsCancel(contract: string): Promise<{ rid: string; cancel: Record<string, unknown> }> {
  const subscription = {
    contract,
    contract_name: 'Gold plan',
    contract_amount: '25.00',
    interval: 'day',
    interval_count: '1',
    billing_cycle: 3,
  };
  const rid = (await authorise(gw, { subscription })).recurring_id!;
  expect(rid).toMatch(/^RC/);
  const fields = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, recurring_id: rid, contract_name: 'Gold plan' };
  return { rid, cancel: signBody(fields, FIELDS.cancelsubscription, SIGN_KEY) };
}

describe('when a /v1 call is sent as an XML document', () => {
  it('then cancelsubscription, as application/xml, cancels the subscription and a second cancel finds it inactive', async () => {
    const { rid, cancel } = await subscribedAndItsCancel('C-1');
    const res = await postXml('/v1/cancelsubscription', toXml(cancel));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ recurring_id: rid, cancel_status: '1', error_message: '' });
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Inactived' });
    const again = await postXml('/v1/cancelsubscription', toXml(cancel), 'text/xml');
    expect(again.body).toMatchObject({ cancel_status: '0' });
  });

  it('then capture reads its orders from repeated elements, and one order alone is still a list of one', async () => {
    const [a, b, c] = [await pay(gw.app), await pay(gw.app), await pay(gw.app)];
    const two = await postXml('/v1/capture', toXml(batchBody('capture', [ref(a), ref(b, { amount: '4.00' })])));
    expect(two.status).toBe(200);
    expect(two.body.capture_orders).toMatchObject([
      { transaction_id: a.transaction_id, capture_status: '1' },
      { transaction_id: b.transaction_id, capture_status: '1', amount: '4.00' },
    ]);
    const one = await postXml('/v1/capture', toXml(batchBody('capture', [ref(c)])), 'text/xml; charset=utf-8');
    expect(one.body.capture_orders).toMatchObject([{ transaction_id: c.transaction_id, capture_status: '1', error_message: '' }]);
  });

  it('then a transaction query names its orders by repeated transaction_id elements and answers them', async () => {
    const [a, b] = [await pay(gw.app), await pay(gw.app)];
    const query = signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, transaction_id: [a.transaction_id, b.transaction_id] },
      FIELDS.retrieval,
      SIGN_KEY,
    );
    const res = await postXml('/v1/retrievalTrans', toXml(query));
    expect(res.status).toBe(200);
    expect(res.body.return_status).toBe('1');
    expect(res.body.orders_list.map((o: { transaction_id: string }) => o.transaction_id).sort()).toEqual(
      [a.transaction_id, b.transaction_id].sort(),
    );
    expect(res.body.orders_list.every((o: { payment_status: string }) => o.payment_status === '3000')).toBe(true);
  });

  it('then its fields are those of the same call’s JSON form, nested objects and arrays included', () => {
    const body = {
      merchant_id: MERCHANT_ID,
      refund_orders: [{ transaction_id: 'T1', refund_reason: 'a < b & "c"' }],
      beneficiary: { address: { city: 'Berlin' }, person_documents: [{ file_type: 'image/png', labels: ['passport'] }] },
      note: '',
    };
    expect(parseBodyText(toXml(body))).toEqual(parseBodyText(JSON.stringify(body)));
    expect(Object.getPrototypeOf(parseBodyText(toXml(body)))).toBeNull();
  });
});

describe('when form fields are declared as XML', () => {
  it('then they are read as form fields (docs/api.md#bodies): a signed cancelsubscription sent so is processed', async () => {
    const { rid, cancel } = await subscribedAndItsCancel('C-2');
    const res = await postXml('/v1/cancelsubscription', new URLSearchParams(cancel as Record<string, string>).toString());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ recurring_id: rid, cancel_status: '1' });
  });
});

describe('when an XML body cannot be read as fields', () => {
  const refused = async (body: string, type = 'application/xml') => {
    const res = await postXml('/v1/cancelsubscription', body, type);
    expect(res.status).toBe(400);
    return res.body as { code: string; message: string };
  };

  it('then a DOCTYPE (an entity declaration) is refused before anything is expanded', async () => {
    const bomb = `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><request><merchant_id>&b;</merchant_id></request>`;
    expect(await refused(bomb)).toMatchObject({ code: 'INVALID_BODY', message: expect.stringMatching(/may not have a DOCTYPE/) });
  });

  it('then a malformed document, a deep document and a reserved element name are each refused saying why', async () => {
    expect((await refused('<request><merchant_id>1000001</request>')).message).toMatch(/^body: is not a well-formed XML document/);
    expect((await refused(`<request>${'<a>'.repeat(40)}x${'</a>'.repeat(40)}</request>`)).message).toBe(
      'body: is nested deeper than 32 levels',
    );
    expect(await refused('<request><merchant_id>1</merchant_id><__proto__><account_id>2</account_id></__proto__></request>')).toMatchObject(
      {
        message: expect.stringMatching(/__proto__: is a reserved name/),
      },
    );
    expect((await refused('<request><constructor>1</constructor></request>')).message).toMatch(/constructor: is a reserved name/);
    expect((await refused('<request>1000001</request>')).message).toMatch(
      /root element of an XML document must hold one element per field/,
    );
  });
});
