import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

/** Field names that may hold card data anywhere in a log object: always replaced before writing. */
export const REDACTED_PATHS = [
  'card',
  'pan',
  'security_code',
  'cvv',
  'cvc',
  'expiration_month',
  'expiration_year',
  'card_number',
  '*.card',
  '*.pan',
  '*.security_code',
  '*.cvv',
  '*.cvc',
  '*.card_number',
  '*.expiration_month',
  '*.expiration_year',
  'body',
  '*.body',
  'req.body',
  'sealed',
  '*.sealed',
];

/**
 * JSON logs with card fields redacted. Without a destination, logs go to stdout through an asynchronous
 * buffer (a synchronous write per line costs the payment path dearly); flushLogger() empties it on exit.
 */
export function createLogger(level: string, destination?: DestinationStream): PinoLogger {
  return pino(
    {
      level,
      base: { service: 'payment-gateway' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? bufferedStdout(),
  );
}

/** stdout written in 4 KB blocks (one write per block, not per line) and flushed at least every 200 ms. */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stream.flush();
    } catch {
      // flushing while a write is under way is refused; the next tick flushes
    }
  }, 200).unref();
  return stream;
}

/** A pino child that writes without the redaction walk (for lines redactionIsNoop clears). */
function withoutRedaction(log: PinoLogger): PinoLogger {
  return log.child({}, { redact: { paths: [], censor: '[redacted]' } });
}

/** Field names the redaction replaces when they stand at the top of a log object. */
const TOP_LEVEL_REDACTED: ReadonlySet<string> = new Set(REDACTED_PATHS.filter((p) => !p.includes('.')));

/** True when redaction cannot change the object: only text, number and boolean values, none under a redacted name. */
export function redactionIsNoop(obj: object): boolean {
  for (const k in obj) {
    const v = (obj as Record<string, unknown>)[k];
    if (TOP_LEVEL_REDACTED.has(k) || (v !== null && typeof v === 'object') || typeof v === 'function') return false;
  }
  return true;
}

type Level = 'info' | 'warn' | 'error' | 'debug';

/** The logger the core is given (core/ports/deps.ts Logger), made by coreLogger. */
export type CoreLogger = Record<Level, (obj: object, msg?: string) => void>;

/**
 * The core's logger: a line whose fields are flat scalars under no redacted name (the per-request access
 * line, and most of the core's lines: ids, statuses, counts) is written by a child without the redaction
 * walk, which cost as much as the rest of the line; any other line (an error object, a nested record) goes
 * through the redacting logger. The output is the same either way: the walk has nothing to replace in such
 * a line.
 */
export function coreLogger(log: PinoLogger): CoreLogger {
  const plain = withoutRedaction(log);
  const route =
    (level: Level) =>
    (obj: object, msg?: string): void =>
      redactionIsNoop(obj) ? plain[level](obj, msg) : log[level](obj, msg);
  return { info: route('info'), warn: route('warn'), error: route('error'), debug: route('debug') };
}

export function flushLogger(log: PinoLogger): void {
  try {
    log.flush();
  } catch {
    // the stream may already be closed
  }
}
