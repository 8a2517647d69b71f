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

/**
 * The logger of the per-request access line: a pino child without the redaction walk (its fields are
 * scalars the gateway sets, see app.ts); any other logger is used as it is.
 */
export function accessLogger<L extends object>(log: L): L {
  const child = (log as Partial<PinoLogger>).child;
  return typeof child === 'function' ? (child.call(log, {}, { redact: { paths: [], censor: '[redacted]' } }) as unknown as L) : log;
}

export function flushLogger(log: PinoLogger): void {
  try {
    log.flush();
  } catch {
    // the stream may already be closed
  }
}
