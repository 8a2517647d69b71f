import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { FIELDS, sign } from '../support/sign.js';
import { signRequest } from '../../src/merchant/verify.js';

const TOOL = join(ROOT, 'src/tools/sign-request.ts');
const KEY = 'tool-test-key';
const body = { merchant_id: '1000001', account_id: '1000001001', order_no: 'O-1', currency: 'USD', amount: '10', last_name: 'De Morgan' };
const values = FIELDS.authorise.map((f) => (body as Record<string, string>)[f]);

function runTool(...args: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', TOOL, ...args, JSON.stringify(body)], {
    cwd: ROOT,
    env: { ...process.env, SIGN_KEY: KEY },
    encoding: 'utf8',
  });
  return JSON.parse(out) as Record<string, unknown>;
}

describe('tools/sign-request and merchant/verify signRequest offer both signature forms (DESIGN 2)', () => {
  it('when no flag is given, then the tool signs with spaces removed; with --keep-spaces, the values as sent', () => {
    const asSentExpected = signRequest(values, KEY, 'as-sent');
    expect(asSentExpected).not.toBe(sign(values, KEY));
    expect(runTool('/v1/authorise').encryption_data).toBe(sign(values, KEY));
    expect(runTool('--keep-spaces', '/v1/authorise').encryption_data).toBe(asSentExpected);
  });

  it('when signRequest is used in its default form, then it is the documented spaces-removed rule', () => {
    expect(signRequest(values, KEY)).toBe(sign(values, KEY));
    expect(signRequest(['a b', 3], KEY, 'as-sent')).toBe(signRequest(['a b3'], KEY, 'as-sent'));
  });
});
