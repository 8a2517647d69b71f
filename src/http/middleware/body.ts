import express, { type NextFunction, type Request, type Response } from 'express';
import { GatewayError } from '../../core/kernel/errors.js';
import { bodyBoundsFor } from '../body-bounds.js';
import { bodyKind, PARSE_INLINE_UP_TO, parseBodyText } from '../body-text.js';
import { bodyPool } from '../body-pool.js';

export {
  bodyKind,
  bracketsExceed,
  jsonDepthExceeds,
  jsonShapeExceeds,
  MAX_JSON_DEPTH,
  parseBodyText,
  RESERVED_MEMBER_NAMES,
  reservedMemberPath,
  valueDepthExceeds,
} from '../body-text.js';

/** The body limit of a path, in bytes (docs/security.md lists them; http/body-bounds.ts computes them). */
export function bodyLimitFor(path: string): number {
  return bodyBoundsFor(path).bytes;
}

const kb = (bytes: number): string => `${bytes / 1024} KB`;

const readers = new Map<number, ReturnType<typeof express.raw>>();
function rawReader(limit: number): ReturnType<typeof express.raw> {
  let reader = readers.get(limit);
  if (!reader) readers.set(limit, (reader = express.raw({ type: () => true, limit })));
  return reader;
}

/** The raw body text of a POST, kept for strict request signatures (docs/security.md). */
export function rawBodyOf(res: Response): string {
  return typeof res.locals.rawBody === 'string' ? res.locals.rawBody : '';
}

/**
 * The common case read directly: a declared Content-Length within the limit and no Content-Encoding. The
 * body-parser stack (content-type and type-is checks, raw-body's stream layers) showed in the profile of
 * the authorise path; every other request (chunked, compressed, too large, no length) still goes through
 * express.raw, so its errors and its decompression stay as they were.
 */
function readDeclared(req: Request, length: number, accept: (raw: string) => void, next: NextFunction): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let done = false;
  const finish = (err?: GatewayError) => {
    if (done) return;
    done = true;
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('aborted', onFail);
    req.removeListener('error', onFail);
    if (err) return next(err);
    accept(Buffer.concat(chunks, received).toString('utf8'));
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > length) return finish(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
    chunks.push(chunk);
  };
  const onEnd = () => finish(received === length ? undefined : new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
  const onFail = () => finish(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onFail);
  req.on('error', onFail);
}

/** Reads and parses every POST body into req.body; body-reader failures become typed errors. */
export function gatewayBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') {
    req.body = {};
    next();
    return;
  }
  const bounds = bodyBoundsFor(req.path);
  const limit = bounds.bytes;
  const accept = (raw: string): void => {
    res.locals.rawBody = raw;
    const kind = bodyKind(raw);
    // a small JSON or form body is read here at once (every authorisation); anything that may cost more
    // than a millisecond (a large body, any XML document) is read by the body workers (http/body-pool.ts)
    if (raw.length <= PARSE_INLINE_UP_TO && kind !== 'xml') {
      try {
        req.body = parseBodyText(raw, bounds);
      } catch (e) {
        return next(e);
      }
      return next();
    }
    bodyPool.parse(raw, bounds, kind).then(
      (fields) => {
        req.body = fields;
        next();
      },
      (e: unknown) => next(e),
    );
  };
  const declared = req.headers['content-length'];
  const encoding = req.headers['content-encoding'];
  const length = declared !== undefined && /^\d{1,8}$/.test(declared) ? Number(declared) : -1;
  if (length >= 0 && length <= limit && req.headers['transfer-encoding'] === undefined && (!encoding || encoding === 'identity'))
    return readDeclared(req, length, accept, next);
  rawReader(limit)(req, res, (err?: unknown) => {
    if (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return next(new GatewayError('BODY_TOO_LARGE', `body: must be at most ${kb(limit)}`, 'body'));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        return next(new GatewayError('UNSUPPORTED_MEDIA_TYPE', 'body: unsupported encoding or charset', 'body'));
      }
      return next(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
    }
    accept(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
  });
}
