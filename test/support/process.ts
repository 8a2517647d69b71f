import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_DIR, ROOT } from './paths.js';

export interface GatewayProcess {
  child: ChildProcess;
  /** what the process wrote to stdout and stderr so far (the last `keep` characters) */
  output(): string;
}

/**
 * A real gateway process (`src/main.ts` under tsx) with the given environment; everything it writes goes
 * to test-artifacts/logs/<logName>.log, where the card-data scan reads it after the suite.
 */
export function spawnGateway(env: Record<string, string>, logName: string, keep = Infinity): GatewayProcess {
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createWriteStream(join(LOG_DIR, `${logName}.log`));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  for (const s of [child.stdout!, child.stderr!])
    s.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.length > keep) out = out.slice(-keep);
      log.write(d);
    });
  return { child, output: () => out };
}
