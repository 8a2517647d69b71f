import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../../test/support/paths.js';
import { freePort } from '../../../test/support/redis.js';
import { startBuiltGateway, type StartedGateway } from '../../../test/support/started-gateway.js';

/**
 * The SDK as a merchant gets it: packages/sdk copied out of the repository with only the packages its own
 * package.json declares (linked from this checkout's node_modules: no network), packed with `npm pack`
 * (which builds it), installed from the tarball into an empty project with `npm ci --offline`, and used
 * there against a running gateway: authorise, capture, and a notification received and verified.
 */
const run = promisify(execFile);
const SDK = join(ROOT, 'packages', 'sdk');
type Lock = { packages: Record<string, Record<string, unknown>> };

let work: string;
let gateway: StartedGateway;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'gw-sdk-package-'));
  gateway = await startBuiltGateway(
    { PORT: String(await freePort()), HOST: '127.0.0.1', NOTIFY_ALLOW_PRIVATE: '1', LOG_LEVEL: 'warn' },
    'sdk-package',
  );
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const npm = (cwd: string, ...args: string[]) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd,
    env: { ...process.env, npm_config_offline: 'true' },
    maxBuffer: 16 * 1024 * 1024,
  });

/** The SDK alone: its files, and node_modules holding only what its package.json declares. */
function standaloneSdk(): string {
  const dir = join(work, 'sdk');
  for (const f of ['package.json', 'tsconfig.json', 'README.md', 'LICENSE', 'src']) cpSync(join(SDK, f), join(dir, f), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  }
  mkdirSync(join(dir, 'node_modules', '.bin'));
  symlinkSync('../typescript/bin/tsc', join(dir, 'node_modules', '.bin', 'tsc'));
  return dir;
}

/**
 * An empty project depending on the tarball, with a lockfile naming exactly what to install: the tarball
 * and the SDK's dependencies at the versions (and integrity) of this checkout's lockfile, which `npm ci`
 * put in npm's cache, so `npm ci --offline` installs without the network.
 */
function shopProject(tarball: string, sdkPackage: Record<string, unknown>): string {
  const dir = join(work, 'shop');
  mkdirSync(dir);
  const spec = `file:../${tarball}`;
  const manifest = { name: 'shop', version: '1.0.0', private: true, type: 'module', dependencies: { '@payment-gateway/sdk': spec } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const root = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
  const packages: Lock['packages'] = {
    '': { name: 'shop', version: '1.0.0', dependencies: manifest.dependencies },
    'node_modules/@payment-gateway/sdk': {
      version: sdkPackage.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512')
        .update(readFileSync(join(work, tarball)))
        .digest('base64')}`,
      license: sdkPackage.license,
      dependencies: sdkPackage.dependencies,
      bin: sdkPackage.bin,
      engines: sdkPackage.engines,
    },
  };
  const add = (name: string) => {
    const key = `node_modules/${name}`;
    if (packages[key]) return;
    const { dev: _dev, ...entry } = root.packages[key] ?? {};
    if (!entry.version) throw new Error(`${name} is not in package-lock.json`);
    packages[key] = entry;
    for (const dep of Object.keys((entry.dependencies as Record<string, string>) ?? {})) add(dep);
  };
  for (const dep of Object.keys(sdkPackage.dependencies as Record<string, string>)) add(dep);
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'shop', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
  );
  return dir;
}

/** What the shop runs: the README's integration path, through the installed package only. */
const SHOP_SCRIPT = `
import { createServer } from 'node:http';
import { GatewayClient, verifyNotification } from '@payment-gateway/sdk';
const signKey = 'demo-sign-key-change-me';
const notifications = [];
let heard;
const heardOne = new Promise((resolve) => (heard = resolve));
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    notifications.push(verifyNotification({ rawBody: body, xSignature: req.headers['x-signature'], signKey }));
    res.end('ok');
    heard();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const gateway = new GatewayClient({ baseUrl: process.argv[2], merchantId: '1000001', accountId: '1000001001', signKey });
const order_no = 'SDK-' + Date.now();
const paid = await gateway.authorise({ order_no, currency: 'USD', amount: '10.00', first_name: 'Ada', last_name: 'Lovelace',
  card: '4242424242424242', expiration_month: '12', expiration_year: '2034', security_code: '123', shopper_email: 'ada@example.com',
  open3d: 'no3DS', notify_url: 'http://127.0.0.1:' + server.address().port + '/notify' });
const captured = await gateway.capture([{ transaction_id: paid.transaction_id, order_no, currency: 'USD', amount: '10.00' }]);
await Promise.race([heardOne, new Promise((r) => setTimeout(r, 15000))]);
server.close();
console.log(JSON.stringify({ order_no, paid, captured, notifications }));
`;

describe('the SDK as a package', () => {
  it('when packed on its own and installed offline into an empty project, then the project pays, captures and verifies a notification with it', async () => {
    const sdk = standaloneSdk();
    const packed = await npm(sdk, 'pack', '--pack-destination', work);
    const tarball = packed.stdout.trim().split('\n').at(-1)!;
    expect(tarball).toBe('payment-gateway-sdk-0.1.0.tgz');
    const listed = await run('tar', ['-tzf', join(work, tarball)]);
    expect(listed.stdout).toContain('package/dist/index.js');
    expect(listed.stdout).toContain('package/dist/index.d.ts');
    expect(listed.stdout).toContain('package/LICENSE');
    expect(listed.stdout).not.toContain('package/src/');

    const sdkPackage = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as Record<string, unknown>;
    const shop = shopProject(tarball, sdkPackage);
    await npm(shop, 'ci', '--offline', '--ignore-scripts');
    expect(readdirSync(join(shop, 'node_modules', '@payment-gateway', 'sdk', 'dist'))).toContain('client.js');
    writeFileSync(join(shop, 'pay.mjs'), SHOP_SCRIPT);
    const { stdout } = await run(process.execPath, ['pay.mjs', gateway.baseUrl], { cwd: shop });
    const out = JSON.parse(stdout) as {
      order_no: string;
      paid: Record<string, string>;
      captured: { return_status: string; capture_orders: Record<string, string>[] };
      notifications: { ok: boolean; reason?: string; fields: Record<string, string> }[];
    };
    expect(out.paid).toMatchObject({ order_no: out.order_no, order_status: '1', result_info: '0000:Success' });
    expect(out.captured.return_status).toBe('1');
    expect(out.captured.capture_orders[0]).toMatchObject({ transaction_id: out.paid.transaction_id, capture_status: '1' });
    expect(out.notifications.length).toBeGreaterThan(0);
    for (const n of out.notifications) {
      expect(n).toMatchObject({ ok: true });
      expect(n.fields.order_no).toBe(out.order_no);
    }
  }, 90_000);
});
