import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../ports/deps.js';
import { ERROR_CODES, GatewayError, type ErrorCode } from '../kernel/errors.js';
import type { PortalSession } from '../records/portal-records.js';
import type { PortalFormRecord, PortalNotice } from '../records/form-records.js';

export type { PortalNotice };

/** A form's token is accepted this long after its page was rendered; its record is kept as long (and a little more). */
export const FORM_TOKEN_MS = 12 * 60 * 60_000;
/** How long a second submit waits for the first to answer before saying it is still running. */
const WAIT_FOR_FIRST_MS = 10_000;
const NOTICE_MS = 10 * 60_000;

const mac = (session: PortalSession, issued: string, nonce: string): string =>
  createHmac('sha256', session.csrf).update(`portal-form.${issued}.${nonce}`).digest('base64url');

/**
 * A one-time token for one form of a page: `<issued>.<nonce>.<mac>`, the MAC keyed by the session's secret.
 * It proves the form came from this session (CSRF) and, once sent, names the action's record: the same
 * token sent again answers what the first submit did.
 */
export function issueFormToken(session: PortalSession, now: number): string {
  const issued = now.toString(36);
  const nonce = randomBytes(16).toString('base64url');
  return `${issued}.${nonce}.${mac(session, issued, nonce)}`;
}

/** The nonce of a token this session issued less than FORM_TOKEN_MS ago; undefined for anything else. */
export function readFormToken(session: PortalSession, token: unknown, now: number): string | undefined {
  if (typeof token !== 'string') return undefined;
  const m = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return undefined;
  const [, issued, nonce, sent] = m as unknown as [string, string, string, string];
  const want = Buffer.from(mac(session, issued, nonce));
  if (!timingSafeEqual(want, Buffer.from(sent))) return undefined;
  const age = now - parseInt(issued, 36);
  return age >= 0 && age < FORM_TOKEN_MS ? nonce : undefined;
}

/** Where an action's answer sends the browser, and what that page says. */
export interface FormOutcome {
  location: string;
  notice: PortalNotice;
}

const formRefused = (): GatewayError =>
  new GatewayError('CSRF_FAILED', '_csrf: the form is missing its security token or it is out of date; reload the page', '_csrf');

/**
 * Runs a form's action once per token. The first submit claims the token (a versioned create: of submits
 * sent at once exactly one wins), acts, and keeps its outcome under the token in the same step that leaves
 * the notice for the next page. Any other submit of the token acts not at all: it waits for the first to
 * answer and answers the same (the same page and notice, or the same error). A first submit that died
 * mid-way leaves its token running: the page, not a second act, tells what happened.
 */
export async function actOnce(
  deps: CoreDeps,
  session: PortalSession,
  token: unknown,
  path: string,
  act: () => Promise<FormOutcome>,
): Promise<FormOutcome> {
  const nonce = readFormToken(session, token, deps.clock.now());
  if (!nonce) throw formRefused();
  const m = session.merchant_id;
  const record = (next: PortalFormRecord, expected: number) => ({
    sessionId: session.id,
    nonce,
    next,
    expected,
    ttlMs: FORM_TOKEN_MS + 60_000,
  });
  const claim: PortalFormRecord = { version: 0, path, at: deps.clock.now(), state: 'running' };
  if (!(await deps.store.commit({ merchantId: m, portalForms: [record(claim, 0)] }))) return answerAgain(deps, session, nonce, path);
  let outcome: FormOutcome;
  try {
    outcome = await act();
  } catch (err) {
    // a refusal (404, a field error) is kept to answer again; anything else left it unknown whether it acted
    const error =
      err instanceof GatewayError && err.status < 500
        ? { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) }
        : {
            code: 'IDEMPOTENCY_IN_PROGRESS',
            message: 'this form was sent before and what it did is not known; open the page again to see',
          };
    await deps.store.commit({ merchantId: m, portalForms: [record({ ...claim, state: 'done', error }, 1)] }).catch(() => false);
    throw err;
  }
  const done: PortalFormRecord = { ...claim, state: 'done', location: outcome.location, notice: outcome.notice };
  await deps.store.commit({
    merchantId: m,
    portalForms: [record(done, 1)],
    portalFlash: [
      { sessionId: session.id, next: { version: 0, page: outcome.location, notice: outcome.notice }, expected: -1, ttlMs: NOTICE_MS },
    ],
  });
  return outcome;
}

/** A token already sent: the first submit's answer, once it has one; nothing is done again. */
async function answerAgain(deps: CoreDeps, session: PortalSession, nonce: string, path: string): Promise<FormOutcome> {
  for (let pause = 10, waited = 0; ; waited += pause, pause = Math.min(pause * 2, 200)) {
    const first = await deps.store.getPortalForm(session.merchant_id, session.id, nonce);
    if (first && first.path !== path) {
      throw new GatewayError('IDEMPOTENCY_CONFLICT', '_csrf: this form was already used for another action; reload the page', '_csrf');
    }
    if (first?.state === 'done') {
      if (first.error) {
        const code = (first.error.code in ERROR_CODES ? first.error.code : 'IDEMPOTENCY_IN_PROGRESS') as ErrorCode;
        throw new GatewayError(code, first.error.message, first.error.field);
      }
      const outcome = { location: first.location!, notice: { ...first.notice!, repeated: true } };
      await setFlash(deps, session, outcome);
      return outcome;
    }
    if (waited >= WAIT_FOR_FIRST_MS) {
      throw new GatewayError(
        'IDEMPOTENCY_IN_PROGRESS',
        'this form was already sent and is still being processed; open the page again to see its result',
      );
    }
    await sleep(pause);
  }
}

async function setFlash(deps: CoreDeps, session: PortalSession, outcome: FormOutcome): Promise<void> {
  await deps.store.commit({
    merchantId: session.merchant_id,
    portalFlash: [
      { sessionId: session.id, next: { version: 0, page: outcome.location, notice: outcome.notice }, expected: -1, ttlMs: NOTICE_MS },
    ],
  });
}

/**
 * The notice the server left for this page (after an action sent the browser here), shown once. Pages take
 * their notices only from here: nothing in the address can make a page say something was done.
 */
export async function takeNotice(deps: CoreDeps, session: PortalSession, page: string): Promise<PortalNotice | undefined> {
  const flash = await deps.store.getPortalFlash(session.merchant_id, session.id);
  if (!flash || flash.page !== page) return undefined;
  const taken = await deps.store.commit({
    merchantId: session.merchant_id,
    portalFlash: [{ sessionId: session.id, next: null, expected: flash.version, ttlMs: 0 }],
  });
  return taken ? flash.notice : undefined;
}
