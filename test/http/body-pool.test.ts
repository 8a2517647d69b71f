import { afterAll, describe, expect, it } from 'vitest';
import { BODY_QUEUE_LIMIT, BodyPool } from '../../src/http/body-pool.js';
import { GatewayError } from '../../src/core/kernel/errors.js';

/**
 * The body workers (docs/security.md, bodies): a large body is read off the event loop, its refusal comes back
 * as the reader's own error, and past BODY_QUEUE_LIMIT waiting bodies one is refused at once (OVERLOADED).
 */
const pool = new BodyPool(1);
afterAll(() => pool.close());

const bounds = { bytes: 8 * 1024 * 1024, elements: 100 };
const document = (text: string) => `<request><merchant_id>1000001</merchant_id><note>${text}</note></request>`;

describe('the body workers', () => {
  it('when an XML document is read in a worker, then its fields come back without prototypes, and a refusal as its GatewayError', async () => {
    const fields = await pool.parse(document('a &amp; b'), bounds, 'xml');
    expect(fields).toEqual(Object.assign(Object.create(null), { merchant_id: '1000001', note: 'a & b' }));
    expect(Object.getPrototypeOf(fields)).toBeNull();
    const refused = await pool.parse('<request><a>x</b></request>', bounds, 'xml').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: 'INVALID_BODY', field: 'body' });
  });

  it('when more large bodies wait than the queue takes, then the ones past it are refused at once with OVERLOADED (503), and the others are read', async () => {
    const big = document('x'.repeat(512 * 1024));
    const answers = await Promise.all(
      Array.from({ length: BODY_QUEUE_LIMIT + 8 }, () =>
        pool.parse(big, bounds, 'xml').then(
          () => 'read',
          (e: unknown) => (e as GatewayError).code,
        ),
      ),
    );
    const overloaded = answers.filter((a) => a === 'OVERLOADED').length;
    expect(overloaded).toBeGreaterThan(0);
    expect(answers.filter((a) => a === 'read').length).toBe(answers.length - overloaded);
    expect(answers.filter((a) => a === 'read').length).toBeGreaterThanOrEqual(BODY_QUEUE_LIMIT);
  }, 120_000);
});
