import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authoriseBody, makeGateway } from '../../support/gateway.js';
import { LOG_DIR } from '../../support/paths.js';
import { CARDS } from '../../support/cards.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { coreLogger, createLogger, redactionIsNoop } from '../../../src/logger.js';

const lines = (name: string) =>
  readFileSync(join(LOG_DIR, `${name}.log`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the access line of every request (written without the redaction walk)', () => {
  it('when a payment is made, then one line names the call, its status, time and transaction, and no card field', async () => {
    const gw = makeGateway({ name: 'access-log' });
    const res = await request(gw.app).post('/v1/authorise').type('form').send(JSON.stringify(authoriseBody()));
    expect(res.status).toBe(200);
    const requestId = res.headers['x-request-id'];
    const line = lines('access-log').find((l) => l.msg === 'request' && l.request_id === requestId);
    expect(line).toMatchObject({ method: 'POST', path: '/v1/authorise', status: 200, payment_status: expect.any(String) });
    expect(line!.transaction_id).toMatch(/^\d{14}/);
    expect(typeof line!.ms).toBe('number');
    expect(JSON.stringify(line)).not.toContain(CARDS.approved);
    await gw.close();
  });

  it('when the transaction id is made in a second whose stamp passes the Luhn check, then the line names it as answered, unmasked', async () => {
    // 2026-11-23 06:55:04 UTC: the id's leading stamp 20261123065504 is a Luhn-valid digit run, as one in ten is
    const gw = makeGateway({ name: 'access-log-luhn-id', clock: new ManualClock(Date.UTC(2026, 10, 23, 6, 55, 4)) });
    const res = await request(gw.app).post('/v1/authorise').type('form').send(JSON.stringify(authoriseBody()));
    expect(res.status).toBe(200);
    const transactionId = /<transaction_id>([^<]+)</.exec(res.text)![1]!;
    expect(transactionId).toMatch(/^20261123065504/);
    const line = lines('access-log-luhn-id').find((l) => l.msg === 'request' && l.request_id === res.headers['x-request-id']);
    expect(line!.transaction_id).toBe(transactionId);
    await gw.close();
  });

  it('when anything else logs a card field, then the gateway logger still redacts it', async () => {
    const gw = makeGateway({ name: 'access-log-redact' });
    gw.deps.log.info({ card: CARDS.approved, order: { pan: CARDS.approved } }, 'redaction probe');
    const line = lines('access-log-redact').find((l) => l.msg === 'redaction probe');
    expect(line).toMatchObject({ card: '[redacted]', order: { pan: '[redacted]' } });
    await gw.close();
  });
});

describe('the core logger (lines of flat scalars skip the redaction walk)', () => {
  it('when a line holds only scalars, then it is written as the redacting logger would write it', () => {
    const a = new PassThroughLines();
    const b = new PassThroughLines();
    const fields = { transaction_id: '20261123080548VDGKLAL2', merchant_id: '1000001', status: '3000', resumed: false, n: 3 };
    coreLogger(createLogger('info', a.stream)).info(fields, 'operation applied');
    createLogger('info', b.stream).info(fields, 'operation applied');
    expect(a.lines).toHaveLength(1);
    expect(withoutTime(a.lines[0]!)).toEqual(withoutTime(b.lines[0]!));
  });

  it('when a line names a card field at the top or nests an object, then it is redacted', () => {
    const out = new PassThroughLines();
    const log = coreLogger(createLogger('info', out.stream));
    log.info({ card: CARDS.approved }, 'top');
    log.warn({ transaction_id: 't', order: { pan: CARDS.approved } }, 'nested');
    log.error({ body: 'x' }, 'body');
    expect(out.lines.map((l) => [l.msg, l.card ?? (l.order as { pan?: string } | undefined)?.pan ?? l.body])).toEqual([
      ['top', '[redacted]'],
      ['nested', '[redacted]'],
      ['body', '[redacted]'],
    ]);
    expect(JSON.stringify(out.lines)).not.toContain(CARDS.approved);
  });

  it('redactionIsNoop: true only for flat scalars under names the redaction leaves alone', () => {
    expect(redactionIsNoop({ a: 'x', b: 1, c: true, d: null })).toBe(true);
    expect(redactionIsNoop({ cvv: '123' })).toBe(false);
    expect(redactionIsNoop({ err: { message: 'm' } })).toBe(false);
    expect(redactionIsNoop({ list: [] })).toBe(false);
  });
});

class PassThroughLines {
  lines: Record<string, unknown>[] = [];
  stream = { write: (s: string) => void this.lines.push(JSON.parse(s) as Record<string, unknown>) };
}

function withoutTime(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _t, ...rest } = line;
  return rest;
}
