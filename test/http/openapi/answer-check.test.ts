import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { Router } from 'express';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { answerProblems, type Answer } from '../../support/contract/check.js';
import { takeAnswerProblems } from '../../support/contract/watch.js';
import { authoriseBody, makeGateway } from '../../support/gateway.js';

/**
 * The answer check (test/support/contract) holds every answer a test receives to the OpenAPI document. A
 * check that cannot fail is no check: here it is shown answers that do not fit, one fault at a time.
 */
const answer = (a: Partial<Omit<Answer, 'body'>> & { body?: Buffer | string }): Answer => ({
  method: 'GET',
  path: '/healthz',
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  ...a,
  body: Buffer.isBuffer(a.body) ? a.body : Buffer.from(a.body ?? '{"status":"ok"}'),
});

describe('when an answer is checked against the document', () => {
  it('then one that fits passes', () => {
    expect(answerProblems(answer({}))).toEqual([]);
  });

  it('then a status the operation does not list is named', () => {
    expect(answerProblems(answer({ status: 418 }))).toEqual([
      expect.stringMatching(/GET \/healthz answered 418, a status the document does not list for healthz/),
    ]);
  });

  it('then a content type the response does not list is named', () => {
    expect(answerProblems(answer({ headers: { 'content-type': 'text/plain' }, body: 'ok' }))).toEqual([
      expect.stringMatching(/as text\/plain; the document lists application\/json/),
    ]);
  });

  it('then a JSON body outside the schema is named with the member at fault', () => {
    expect(answerProblems(answer({ body: '{"status":5}' }))).toEqual([
      expect.stringMatching(/outside the document's schema: \/status must be/),
    ]);
    expect(answerProblems(answer({ body: '{"status":' }))).toEqual([expect.stringMatching(/the body is not JSON/)]);
  });

  it('then an error code of another status, or a missing Retry-After, is named', () => {
    const error = (code: string) => `{"code":"${code}","message":"m","request_id":"r","return_status":"0"}`;
    const capture = { method: 'POST', path: '/v1/capture' };
    expect(answerProblems(answer({ ...capture, status: 400, body: error('INVALID_FIELD') }))).toEqual([]);
    expect(answerProblems(answer({ ...capture, status: 400, body: error('AUTHENTICATION_FAILED') }))).toEqual([
      expect.stringMatching(/\/code must be equal to one of the allowed values/),
    ]);
    expect(answerProblems(answer({ ...capture, status: 429, body: error('RATE_LIMITED') }))).toEqual([
      expect.stringMatching(/without its required header Retry-After/),
    ]);
  });

  it('then an XML answer is parsed and checked: its root, its elements and their values', () => {
    const authorise = { method: 'POST', path: '/v1/authorise', headers: { 'content-type': 'application/xml' } };
    const refusal = (inner: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<respon>\n${inner}</respon>\n`.replace(
        '%',
        ['merchant_id', 'account_id', 'order_no', 'amount', 'currency', 'transaction_id', 'card'].map((k) => `<${k}></${k}>`).join('') +
          ['contract_name', 'recurring_id', 'recurring_deduction_period', 'recurring_deduction_time', 'note', 'token_id', 'connector']
            .concat(['threeds_result', 'risk_action', 'risk_score'])
            .map((k) => `<${k}></${k}>`)
            .join(''),
      );
    const ok = refusal(
      '%<order_status>0</order_status><result_info>INVALID_FIELD:amount: bad</result_info><request_id>r</request_id><encryption_data></encryption_data>',
    );
    expect(answerProblems(answer({ ...authorise, status: 400, body: ok }))).toEqual([]);
    expect(answerProblems(answer({ ...authorise, status: 400, body: ok.replace('<order_status>0', '<order_status>1') }))).toEqual([
      expect.stringMatching(/\/order_status must be equal to constant/),
    ]);
    expect(answerProblems(answer({ ...authorise, status: 400, body: ok.replace('<request_id>r</request_id>', '') }))).toEqual([
      expect.stringMatching(/must have required property 'request_id'/),
    ]);
    expect(answerProblems(answer({ ...authorise, status: 400, body: ok.replaceAll('respon>', 'response>') }))).toEqual([
      expect.stringMatching(/its root element is not <respon>/),
    ]);
    expect(answerProblems(answer({ ...authorise, status: 400, body: '<respon><a></respon>' }))).toEqual([
      expect.stringMatching(/not well-formed XML/),
    ]);
  });

  it('then an address the document does not list may only answer as an unknown address', () => {
    expect(answerProblems(answer({ path: '/nowhere', status: 404, body: '{"code":"NOT_FOUND","message":"m","request_id":"r"}' }))).toEqual(
      [],
    );
    expect(answerProblems(answer({ path: '/nowhere', status: 200 }))).toEqual([
      expect.stringMatching(/the document has no operation GET \/nowhere/),
    ]);
    expect(answerProblems(answer({ method: 'DELETE', path: '/healthz', status: 200 }))).toEqual([
      expect.stringMatching(/the document has no operation DELETE \/healthz/),
    ]);
  });
});

describe('when the gateway app gives a test an answer outside the document', () => {
  it('then the app-level hook reports it after the test, and reports nothing for answers that fit', async () => {
    const gw = makeGateway({ name: 'answer-check', clock: new ManualClock() });
    expect((await request(gw.app).post('/v1/authorise').type('json').send(JSON.stringify(authoriseBody()))).status).toBe(200);
    expect(await takeAnswerProblems()).toEqual([]);
    // a route put in front of the gateway's own answers /healthz in a shape the document does not give it
    const wrong = Router().get('/healthz', (_req, res) => void res.status(200).json({ status: 'fine' }));
    const stack = (gw.app as unknown as { router: { stack: unknown[] } }).router.stack;
    gw.app.use(wrong);
    stack.unshift(stack.pop());
    expect((await request(gw.app).get('/healthz')).body).toEqual({ status: 'fine' });
    expect(await takeAnswerProblems()).toEqual([
      expect.stringMatching(/GET \/healthz answered 200 with a application\/json body outside the document's schema/),
    ]);
    await gw.close();
  });
});
