import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { FIELDS, sign } from '../support/sign.js';
import { signValues } from '../../packages/sdk/src/index.js';

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

describe('tools/sign-request and the SDK’s signValues offer both signature forms', () => {
  it('when no flag is given, then the tool signs with spaces removed; with --keep-spaces, the values as sent', () => {
    const asSentExpected = signValues(values, KEY, 'as-sent');
    expect(asSentExpected).not.toBe(sign(values, KEY));
    expect(runTool('/v1/authorise').encryption_data).toBe(sign(values, KEY));
    expect(runTool('--keep-spaces', '/v1/authorise').encryption_data).toBe(asSentExpected);
  });

  it('when signRequest is used in its default form, then it is the documented spaces-removed rule', () => {
    expect(signValues(values, KEY)).toBe(sign(values, KEY));
    expect(signValues(['a b', 3], KEY, 'as-sent')).toBe(signValues(['a b3'], KEY, 'as-sent'));
  });

  it('when asked for help or given a mistake, then it prints the usage or one line saying what is wrong, never a stack trace', () => {
    const tool = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', TOOL, ...args], { cwd: ROOT, encoding: 'utf8', input: '' });
    const help = tool('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: node dist\/tools\/sign-request\.js \[--keep-spaces\] <path>/);
    expect(help.stdout).toContain('/v1/cancelsubscription');
    for (const [args, message] of [
      [['/v1/nope', '{}'], /^sign-request: \/v1\/nope is not a signed call/],
      [['/v1/capture', '{not json'], /^sign-request: the body is not valid JSON/],
      [['/v1/capture', '[1]'], /^sign-request: the body must be a JSON object/],
      [['--verbose', '/v1/capture', '{}'], /^sign-request: unknown option --verbose/],
    ] as const) {
      const r = tool(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
