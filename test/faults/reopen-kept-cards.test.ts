import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { authoriseBody, ACCOUNT_ID, MERCHANT_ID } from '../support/gateway.js';
import { authorise, jobOf } from '../support/jobs.js';
import { instrumented } from '../support/faults.js';

/**
 * A payment that keeps its card (token_flag YES, a subscription, a card the shopper saves) drops it when recovery
 * records the authorisation as never sent. The merchant's retry of the order re-opens the payment and is approved:
 * the card it carries again must be kept again, or the approved payment answers a token that charges nothing.
 */
const world = redisWorld('faults-reopen-kept-cards');
const NOTIFY = { notify_url: 'https://merchant.example/notify' };

describe('a never-sent authorisation re-opened by the order sent again', () => {
  it('when the order asked for a token, then the approved retry answers a token whose card is in the vault and charges again', async () => {
    const clock = new ManualClock();
    const connector = instrumented({ hangBeforeActing: new Set(['authorise']) });
    const gw = world.gateway('reopen-token', clock, { wrapConnector: connector.wrap });
    const body = authoriseBody({ ...NOTIFY, token_flag: 'YES' });
    const find = () => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
    void request(gw.app)
      .post('/v1/authorise')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(JSON.stringify(body))
      .then(
        () => undefined,
        () => undefined,
      );
    for (let i = 0; i < 100 && !(await find()); i++) await new Promise((r) => setTimeout(r, 20));
    connector.faults.hangBeforeActing!.delete('authorise');
    const kept = (await find())!.vault_token!;
    expect(await gw.deps.store.getCard(MERCHANT_ID, kept)).toBeDefined();
    // recovery finds no record at the acquirer, waits out the grace window, and records it never sent
    clock.advance(gw.deps.pendingResolveMs + 1_000);
    await jobOf(gw, 'pending-resolve').runOnce();
    clock.advance(gw.deps.pendingResolveMs / 2 + 1_000);
    await jobOf(gw, 'pending-resolve').runOnce();
    expect(await find()).toMatchObject({ status: '4000', never_sent: true });
    expect(await gw.deps.store.getCard(MERCHANT_ID, kept)).toBeUndefined();
    const again = await authorise(gw, body);
    expect(again).toMatchObject({ order_status: '1' });
    expect(again.token_id).toMatch(/\S/);
    const card = await gw.deps.store.getCard(MERCHANT_ID, again.token_id!);
    expect(card).toMatchObject({ account_id: ACCOUNT_ID, card: { last4: '4242' } });
    expect(await find()).toMatchObject({ status: '3000', token_id: again.token_id, vault_token: again.token_id, vault_created: true });
    // the token charges again
    const repeat = await authorise(gw, {
      ...NOTIFY,
      token_id: again.token_id,
      card: '',
      expiration_month: '',
      expiration_year: '',
      security_code: '',
    });
    expect(repeat).toMatchObject({ order_status: '1' });
  });
});
