import { describe, expect, it } from 'vitest';
import { SandboxConnector } from '../../../src/core/connectors/sandbox.js';
import { ManualClock, randomIds } from '../../../src/core/kernel/clock.js';
import { CARDS, CHALLENGE_CODE } from '../../support/cards.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';

const sandbox = new SandboxConnector(randomIds(new ManualClock()), new KvGatewayStore(new MemoryKv()));
let n = 0;
const auth = (pan: string, threeDS: 'do3DS' | 'no3DS' = 'no3DS', reference = `T${++n}-${pan}-${threeDS}`) =>
  sandbox.authorise({ reference, pan, expMonth: '12', expYear: '2034', securityCode: '737', amount: 1000, currency: 'USD', threeDS });

describe('the sandbox connector (DESIGN section 7)', () => {
  it('when the test cards are authorised, then each gives its documented outcome', async () => {
    expect((await auth(CARDS.approved)).kind).toBe('approved');
    expect(await auth(CARDS.declined)).toMatchObject({ kind: 'declined', reason: 'DECLINED' });
    expect(await auth(CARDS.insufficientFunds)).toMatchObject({ kind: 'declined', reason: 'INSUFFICIENT_FUNDS' });
    expect(await auth(CARDS.expiredCard)).toMatchObject({ kind: 'declined', reason: 'EXPIRED_CARD' });
    expect((await auth(CARDS.processingError)).kind).toBe('error');
    expect((await auth(CARDS.challenge, 'do3DS')).kind).toBe('challenge');
    expect((await auth(CARDS.challenge, 'no3DS')).kind).toBe('approved');
  });

  it('when a challenge is answered, then 123456 passes and any other code fails', async () => {
    const started = await auth(CARDS.challenge, 'do3DS', 'T3');
    if (started.kind !== 'challenge') throw new Error('expected a challenge');
    expect((await sandbox.completeChallenge(started.connectorRef, CHALLENGE_CODE, 'T3-3ds')).kind).toBe('approved');
    const other = await auth(CARDS.challenge, 'do3DS', 'T4');
    if (other.kind !== 'challenge') throw new Error('expected a challenge');
    expect(await sandbox.completeChallenge(other.connectorRef, '000000', 'T4-3ds')).toMatchObject({
      kind: 'declined',
      reason: 'THREEDS_FAILED',
    });
  });

  it('when the same refund is asked twice (a retry after a crash), then the acquirer answers the same refund', async () => {
    const a = await sandbox.refund('sbx_X', 500, 'USD', 'T1-01');
    const b = await sandbox.refund('sbx_X', 500, 'USD', 'T1-01');
    const c = await sandbox.refund('sbx_X', 500, 'USD', 'T1-02');
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });
});
