import express, { type NextFunction, type Request, type Response } from 'express';
import { GatewayError } from '../../core/kernel/errors.js';

export const BODY_LIMIT = '1mb';
const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * DESIGN section 3: merchants send a JSON text whatever the declared content type. The raw body is read
 * (at most 1 MB) and taken as JSON when it starts with `{` or `[`, otherwise as form fields.
 */
export function parseBodyText(text: string): Record<string, unknown> {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return {};
  if (trimmed[0] === '{' || trimmed[0] === '[') {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      throw new GatewayError('INVALID_BODY', `body: is not valid JSON (${(err as Error).message})`, 'body');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new GatewayError('INVALID_BODY', 'body: must be a JSON object', 'body');
    }
    return value as Record<string, unknown>;
  }
  const fields: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(trimmed)) if (!(k in fields)) fields[k] = v;
  return fields;
}

const readRaw = express.raw({ type: () => true, limit: BODY_LIMIT });

/**
 * The common case read directly: a declared Content-Length within the limit and no Content-Encoding. The
 * body-parser stack (content-type and type-is checks, raw-body's stream layers) showed in the profile of
 * the authorise path; every other request (chunked, compressed, too large, no length) still goes through
 * express.raw, so its errors and its decompression stay as they were.
 */
function readDeclared(req: Request, length: number, next: NextFunction): void {
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
    try {
      req.body = parseBodyText(Buffer.concat(chunks, received).toString('utf8'));
      next();
    } catch (e) {
      next(e);
    }
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
  const declared = req.headers['content-length'];
  const encoding = req.headers['content-encoding'];
  const length = declared !== undefined && /^\d{1,7}$/.test(declared) ? Number(declared) : -1;
  if (length >= 0 && length <= BODY_LIMIT_BYTES && req.headers['transfer-encoding'] === undefined && (!encoding || encoding === 'identity'))
    return readDeclared(req, length, next);
  readRaw(req, res, (err?: unknown) => {
    if (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return next(new GatewayError('BODY_TOO_LARGE', `body: must be at most ${BODY_LIMIT}`, 'body'));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        return next(new GatewayError('UNSUPPORTED_MEDIA_TYPE', 'body: unsupported encoding or charset', 'body'));
      }
      return next(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
    }
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      req.body = parseBodyText(raw);
      next();
    } catch (e) {
      next(e);
    }
  });
}
