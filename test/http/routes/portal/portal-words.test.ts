import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../support/redis-world.js';
import { pay, postBatch, ref } from '../../../support/operations.js';
import { CARDS } from '../../../support/cards.js';
import { NotificationReceiver } from '../../../support/receiver.js';
import { jobOf } from '../../../support/jobs.js';
import { portalMerchants, PORTAL, signedIn } from '../../../support/portal.js';

const world = redisWorld('portal-words');

async function gateway() {
  const clock = new ManualClock();
  const gw = world.gateway('portal-words', clock, { merchants: await portalMerchants() });
  return { gw, clock };
}

const headline = (html: string): string => /<h1 id="headline">([^<]*)<\/h1>/.exec(html)?.[1] ?? '';
const historyLines = (html: string): string[] =>
  [.../<ol class="log" id="history">([\s\S]*?)<\/ol>/.exec(html)![1]!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) =>
    m[1]!.replace(/<[^>]+>/g, ''),
  );

describe('when a payment that moved no money is opened', () => {
  it('then its page says declined and nothing charged, and never calls it authorised', async () => {
    const { gw } = await gateway();
    const declined = await pay(gw.app, { card: CARDS.declined, amount: '25.00' });
    const agent = await signedIn(gw.app, PORTAL.admin);
    const page = (await agent.get(`/portal/payments/${declined.transaction_id}`)).text;
    expect(headline(page)).toBe('Payment declined');
    expect(page).toContain('Amount declined');
    expect(page).toContain('Nothing was charged.');
    expect(page).toMatch(/<span class="status s4000">Declined<\/span>/);
    expect(page).not.toMatch(/>\s*Authorised\s*</);
    expect(page).not.toContain('id="amount-captured"');
  });

  it('then an approved one says authorised, with its captured and refunded amounts', async () => {
    const { gw } = await gateway();
    const approved = await pay(gw.app, { amount: '25.00' });
    const agent = await signedIn(gw.app, PORTAL.admin);
    const page = (await agent.get(`/portal/payments/${approved.transaction_id}`)).text;
    expect(headline(page)).toBe('Payment authorised, awaiting capture');
    expect(page).toMatch(/<dt>Authorised<\/dt><dd id="amount-authorised">\$25\.00</);
    expect(page).toMatch(/id="amount-captured">\$0\.00</);
  });
});

describe('when the risk checks hold a payment', () => {
  it('then the reason is a sentence from the catalogue, never the rule code', async () => {
    const { gw } = await gateway();
    const held = await pay(gw.app, { shopper_email: 'shopper+review@example.com' });
    const agent = await signedIn(gw.app, PORTAL.admin);
    const page = (await agent.get(`/portal/payments/${held.transaction_id}`)).text;
    expect(headline(page)).toBe('Payment held for review');
    const reasons = /<ul class="reasons" id="risk-reasons">([\s\S]*?)<\/ul>/.exec(page)![1]!;
    expect(reasons).toContain('The shopper’s e-mail address carries the sandbox’s test trigger (+review or +reject).');
    expect(page).not.toContain('email_test_trigger');
    expect(page).toContain('Checks that found nothing: 4 of 5.');
    // the 3-D Secure results are a card of their own, after the risk card
    expect(page.indexOf('id="threeds-title"')).toBeGreaterThan(page.indexOf('</section>', page.indexOf('id="risk-title"')));
  });
});

describe('when a notification fails again and again', () => {
  it('then its attempts are one summary (count, first, last, next retry) and one history line, not a line per attempt', async () => {
    const { gw, clock } = await gateway();
    const receiver = await new NotificationReceiver([503]).start();
    world.receivers.push(receiver);
    const p = await pay(gw.app, { notify_url: receiver.url });
    const delivery = jobOf(gw, 'notification-delivery');
    for (let i = 0; i < 6; i++) {
      await delivery.runOnce();
      clock.advance(3_600_000);
    }
    expect(receiver.received.length).toBe(6);
    const agent = await signedIn(gw.app, PORTAL.admin);
    const page = (await agent.get(`/portal/payments/${p.transaction_id}`)).text;
    const lines = historyLines(page);
    const about = lines.filter((l) => l.includes('Notification'));
    expect(about).toEqual([
      expect.stringContaining('Notification queued: Payment result'),
      expect.stringContaining('Notification not delivered yet: Payment result (attempts: 6; last: HTTP 503; next retry 20'),
    ]);
    expect(page).toMatch(/class="status d-retrying delivery-status">Retrying</);
    expect(page).toMatch(/class="attempts">6</);
    expect(page).toMatch(/class="first-attempt"><bdi dir="ltr">[^<]+ · HTTP 503<\/bdi>/);
    expect(page).toMatch(/class="last-attempt"><bdi dir="ltr">[^<]+ · HTTP 503<\/bdi>/);
    expect(page).toMatch(/class="next-retry"><bdi dir="ltr">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d</);
  });
});

describe('when a user reads the portal in another language', () => {
  it('then ?lang= picks it and keeps it in a cookie, and Accept-Language is used otherwise', async () => {
    const { gw } = await gateway();
    const p = await pay(gw.app, { card: CARDS.declined });
    const agent = await signedIn(gw.app, PORTAL.admin);
    const german = await agent.get(`/portal/payments/${p.transaction_id}?lang=de`);
    expect(german.text).toMatch(/<html lang="de" dir="ltr">/);
    expect(headline(german.text)).toBe('Zahlung abgelehnt');
    expect(String(german.headers['set-cookie'])).toMatch(/portal_lang=de; Max-Age=\d+; Path=\/portal; HttpOnly; SameSite=Lax/);
    // the cookie (kept by the agent) now wins over the browser's languages
    const kept = await agent.get('/portal/payments').set('Accept-Language', 'fr');
    expect(kept.text).toContain('<h1>Zahlungen</h1>');

    const fresh = await signedIn(gw.app, PORTAL.admin);
    const arabic = await fresh.get(`/portal/payments/${p.transaction_id}`).set('Accept-Language', 'ar-EG,en;q=0.5');
    expect(arabic.text).toMatch(/<html lang="ar" dir="rtl">/);
    expect(headline(arabic.text)).toBe('تم رفض الدفعة');
    const japanese = await fresh.get('/portal/payments').set('Accept-Language', 'ja');
    expect(japanese.text).toContain('<h1>決済</h1>');
  });

  it('then a language only the hosted pages speak gives way to the next one, and at last to English, said so by lang', async () => {
    const { gw } = await gateway();
    const agent = await signedIn(gw.app, PORTAL.admin);
    const next = await agent.get('/portal/payments').set('Accept-Language', 'it-IT, es;q=0.8');
    expect(next.text).toMatch(/<html lang="es" dir="ltr">/);
    const english = await agent.get('/portal/payments').set('Accept-Language', 'it');
    expect(english.text).toMatch(/<html lang="en" dir="ltr">/);
    expect(english.text).toContain('<h1>Payments</h1>');
    const unknown = await agent.get('/portal/payments?lang=xx').set('Accept-Language', 'fr');
    expect(unknown.text).toMatch(/<html lang="fr"/);
    expect(unknown.headers['set-cookie']).toBeUndefined();
  });

  it('then the sign-in page and its errors speak it too', async () => {
    const { gw } = await gateway();
    const agent = await signedIn(gw.app, PORTAL.admin);
    const login = await agent.get('/portal/login?lang=fr');
    expect(login.text).toContain('<h1>Connexion</h1>');
    const missing = await agent.get('/portal/payments/NOPE?lang=es');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No existe ese pago');
    expect(missing.text).toContain('Volver a los pagos');
  });
});

describe('when a right-to-left page words a history line holding ids and codes', () => {
  it('then each id, e-mail and result sits in a left-to-right isolate, so "…-01" never reads "01-…"', async () => {
    const { gw } = await gateway();
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00', refund_reason: 'rtl' })]);
    const agent = await signedIn(gw.app, PORTAL.admin);
    const arabic = await agent.get(`/portal/payments/${p.transaction_id}?lang=ar`);
    expect(historyLines(arabic.text)).toContainEqual(expect.stringContaining(`\u2066${p.transaction_id}-01\u2069`));
    const english = await agent.get(`/portal/payments/${p.transaction_id}?lang=en`);
    expect(historyLines(english.text)).toContainEqual(expect.stringContaining(`Refund ${p.transaction_id}-01: $1.00`));
  });
});
