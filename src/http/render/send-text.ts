import { format, parse } from 'content-type';
import type { Response } from 'express';

type Send = Response['send'];

/**
 * Express's res.send, except that a text body is written as text. Express's own send turns a text of 1,000
 * characters or more into a Buffer (to count its bytes, and to hash it for an ETag, which the gateway does not
 * send): for a page that is a fresh backing store of its size on every answer (beyond node's 4 KB pool),
 * counted as external memory and freed only by a later collection. Given the text, node appends it to the
 * response head and encodes both straight into the socket write. The pages, the XML answers and the batch
 * answers are all longer than that: measured in alternating rounds (median of paired differences), the
 * checkout loading page (about 9 KB) cost 51 us less CPU a page, POST /v1/authorise (its XML answer) 16 us.
 *
 * Everything else is Express's send, step for step (the same headers, status and body): a body that is not
 * text, or an app with an ETag function, goes to Express's send itself. Wrappers of res.send (the idempotent
 * answers) keep working, since this is the send they wrap.
 */
export function textSend(expressSend: Send): Send {
  return function send(this: Response, body?: unknown) {
    if (typeof body !== 'string' || this.app.get('etag fn')) return expressSend.call(this, body);
    const type = this.get('Content-Type');
    if (typeof type === 'string') this.set('Content-Type', withUtf8(type));
    else this.type('html');
    let text = body;
    if (this.req.fresh) this.status(304);
    if (this.statusCode === 204 || this.statusCode === 304) {
      this.removeHeader('Content-Type');
      this.removeHeader('Content-Length');
      this.removeHeader('Transfer-Encoding');
      text = '';
    } else if (this.statusCode === 205) {
      this.set('Content-Length', '0');
      this.removeHeader('Transfer-Encoding');
      text = '';
    } else if (!this.get('Transfer-Encoding') && !nodeCounts(this)) {
      this.set('Content-Length', String(Buffer.byteLength(text, 'utf8')));
    }
    if (this.req.method === 'HEAD') this.end();
    else this.end(text, 'utf8');
    return this;
  } as Send;
}

/**
 * Whether node itself writes the Content-Length of the text that end() is handed: it counts the text's bytes
 * there in any case, and writes them as the header when none is set, on a response with a body to a client
 * that keeps the connection (HTTP/1.1; for HTTP/1.0 it would close instead). Counting 9 KB again here took about
 * 5 us a page. Express's send, and HEAD (end() without the text), set the header themselves.
 */
function nodeCounts(res: Response): boolean {
  return res.req.method !== 'HEAD' && res.useChunkedEncodingByDefault && !res.hasHeader('Content-Length') && !res.hasHeader('Trailer');
}

/** withUtf8's answers: the gateway sends a handful of types, the same on every answer (bounded all the same). */
const utf8Types = new Map<string, string>();

/** The type with charset=utf-8, as Express's send sets it on a text answer. */
function withUtf8(type: string): string {
  let typed = utf8Types.get(type);
  if (typed === undefined) {
    const parsed = parse(type);
    parsed.parameters.charset = 'utf-8';
    typed = format(parsed);
    if (utf8Types.size < 64) utf8Types.set(type, typed);
  }
  return typed;
}
