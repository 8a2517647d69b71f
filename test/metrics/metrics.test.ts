import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { authoriseBody, makeGateway } from '../support/gateway.js';
import { NotificationReceiver } from '../support/receiver.js';
import { authorise, jobOf } from '../support/jobs.js';
import { parseExposition, scrape, valueOf } from '../support/metrics.js';
import { CARDS } from '../support/cards.js';

const world = redisWorld('metrics');

describe('GET /metrics after a payment', () => {
  it('when a card payment is approved, then the request, its duration and the payment are counted by route pattern and status', async () => {
    const gw = world.gateway('metrics-payment', new ManualClock());
    await authorise(gw);
    await authorise(gw, { card: CARDS.declined });
    const m = await scrape(gw);
    expect(valueOf(m, 'gateway_http_requests_total', { method: 'POST', route: '/v1/authorise', status: '200' })).toBe(2);
    expect(valueOf(m, 'gateway_http_request_duration_seconds_count', { route: '/v1/authorise' })).toBe(2);
    expect(valueOf(m, 'gateway_http_request_duration_seconds_bucket', { route: '/v1/authorise', le: '+Inf' })).toBe(2);
    expect(valueOf(m, 'gateway_payments_total', { source: 'direct', status: '3000' })).toBe(1);
    expect(valueOf(m, 'gateway_payments_total', { source: 'direct', status: '4000' })).toBe(1);
    // the process defaults are there too
    expect(valueOf(m, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(m, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });
});

describe('GET /metrics after refused calls', () => {
  it('when calls are refused before or by their route, then each is labelled with the route pattern, never the raw path', async () => {
    const gw = world.gateway('metrics-refused', new ManualClock());
    const badSignature = { ...authoriseBody(), encryption_data: 'ab'.repeat(32) };
    const refused = await request(gw.app).post('/v1/authorise').type('form').send(JSON.stringify(badSignature));
    expect(refused.status).toBe(401);
    // refused by the body reader, before any route ran
    const unreadable = await request(gw.app).post('/v1/capture').type('json').send('{"merchant_id": ');
    expect(unreadable.status).toBe(400);
    // a path with identifiers and a secret in it
    await request(gw.app).get('/v1/3ds/1000001/T-secret-txn/very-secret-value');
    await request(gw.app).get('/no/such/page-12345');

    const res = await request(gw.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parseExposition(res.text);
    expect(valueOf(m, 'gateway_http_requests_total', { method: 'POST', route: '/v1/authorise', status: '401' })).toBe(1);
    expect(valueOf(m, 'gateway_http_requests_total', { method: 'POST', route: '/v1/capture', status: '400' })).toBe(1);
    expect(valueOf(m, 'gateway_http_requests_total', { method: 'GET', route: '/v1/3ds/:merchantId/:transactionId/:secret' })).toBe(1);
    expect(valueOf(m, 'gateway_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(res.text).not.toContain('very-secret-value');
    expect(res.text).not.toContain('page-12345');
    // a refused call settles no payment
    expect(m.filter((s) => s.name === 'gateway_payments_total')).toEqual([]);
  });
});

describe('GET /metrics around a notification delivery', () => {
  it('when a notification waits and is then delivered, then the backlog gauge, the delivery and the job run are counted', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('metrics-delivery', clock);
    const r = await new NotificationReceiver([500, 200]).start();
    world.receivers.push(r);
    await authorise(gw, { notify_url: r.url });

    let m = await scrape(gw);
    expect(valueOf(m, 'gateway_notifications_pending')).toBe(1);
    expect(valueOf(m, 'gateway_due_items', { queue: 'outbox' })).toBe(1);
    expect(valueOf(m, 'gateway_due_items', { queue: 'auth_expiry' })).toBe(1);

    const delivery = jobOf(gw, 'notification-delivery');
    await delivery.runOnce(); // the receiver answers 500: retried after about 1 s
    clock.advance(5_000);
    m = await scrape(gw);
    expect(valueOf(m, 'gateway_notification_deliveries_total', { result: 'failed' })).toBe(1);
    expect(valueOf(m, 'gateway_notifications_pending')).toBe(1);
    // due for about 4 s by now: an operator's "outbox is late" alert reads this
    expect(valueOf(m, 'gateway_notifications_oldest_due_seconds')).toBeGreaterThan(3);

    await delivery.runOnce();
    expect(r.received).toHaveLength(2);
    m = await scrape(gw);
    expect(valueOf(m, 'gateway_notification_deliveries_total', { result: 'delivered' })).toBe(1);
    expect(valueOf(m, 'gateway_notifications_pending')).toBe(0);
    expect(valueOf(m, 'gateway_notifications_oldest_due_seconds')).toBe(0);
    expect(valueOf(m, 'gateway_job_runs_total', { job: 'notification-delivery', result: 'ok' })).toBe(2);
  });
});

describe('METRICS_ALLOW', () => {
  it('when the caller is not in the list, then /metrics answers 403 and no series', async () => {
    const gw = makeGateway({ name: 'metrics-allow', env: { METRICS_ALLOW: '10.0.0.0/8, 192.0.2.7' } });
    world.open.push(gw);
    const res = await request(gw.app).get('/metrics');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('IP_NOT_ALLOWED');
    expect(res.text).not.toContain('gateway_');
  });

  it('when it is off, then /metrics is not served and payments still work', async () => {
    const gw = makeGateway({ name: 'metrics-off', env: { METRICS_ALLOW: 'off' } });
    world.open.push(gw);
    expect((await authorise(gw)).order_status).toBe('1');
    expect((await request(gw.app).get('/metrics')).status).toBe(404);
  });
});
