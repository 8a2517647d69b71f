import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { makeGateway, type TestGateway } from '../gateway.js';
import { StripeStub } from './stripe-stub.js';
import { AdyenStub } from './adyen-stub.js';
import { ADYEN_ENV, STRIPE_ENV, acquirerMerchants } from './accounts.js';

export interface AcquirerStubs {
  stripe: StripeStub;
  adyen: AdyenStub;
  /** a gateway whose test account routes to `code`'s stub, on its own clock (the caller closes it) */
  gateway(code: 'stripe' | 'adyen', name: string): { gw: TestGateway; clock: ManualClock };
}

/** The Stripe and Adyen stubs, started before the file's tests and stopped after; `prefix` names the logs. */
export function acquirerStubs(prefix: string): AcquirerStubs {
  const stripe = new StripeStub();
  const adyen = new AdyenStub();
  beforeAll(async () => {
    await Promise.all([stripe.start(), adyen.start()]);
  });
  afterAll(async () => {
    await Promise.all([stripe.stop(), adyen.stop()]);
  });
  return {
    stripe,
    adyen,
    gateway(code, name) {
      const clock = new ManualClock();
      const gw = makeGateway({
        name: `${prefix}-${code}-${name}`,
        clock,
        merchants: acquirerMerchants(code, code === 'stripe' ? stripe.baseUrl : adyen.baseUrl),
        env: code === 'stripe' ? STRIPE_ENV : ADYEN_ENV,
      });
      return { gw, clock };
    },
  };
}
