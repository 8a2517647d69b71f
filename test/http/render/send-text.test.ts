import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import express, { type Express, type Request, type Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { textSend } from '../../../src/http/render/send-text.js';
import { createApp } from '../../../src/app.js';
import { makeGateway } from '../../support/gateway.js';

/** Longer than the 1,000 characters above which Express's send turns a text into a Buffer; é and € are 2 and 3 bytes. */
const LONG = `<p>${'café € '.repeat(300)}</p>`;
const SHORT = '<p>short é</p>';

/** The routes both apps answer: each a way the gateway's routers and middlewares call res.send. */
const ROUTES: Record<string, (req: Request, res: Response) => void> = {
  '/long': (_req, res) => void res.send(LONG),
  '/short': (_req, res) => void res.send(SHORT),
  '/xml': (_req, res) => void res.type('application/xml').send(`<?xml version="1.0"?><a>${LONG}</a>`),
  '/other-charset': (_req, res) => void res.set('Content-Type', 'text/plain; charset=iso-8859-1').send(LONG),
  '/json': (_req, res) => void res.json({ rows: Array.from({ length: 60 }, (_, i) => ({ i, text: 'é€' })) }),
  '/status-201': (_req, res) => void res.status(201).send(LONG),
  '/status-204': (_req, res) => void res.status(204).send(LONG),
  '/status-205': (_req, res) => void res.status(205).send(LONG),
  '/chunked': (_req, res) => void res.set('Transfer-Encoding', 'chunked').send(LONG),
  '/etag-header': (_req, res) => void res.set('ETag', '"v1"').send(LONG),
  '/buffer': (_req, res) => void res.send(Buffer.from(LONG)),
  '/empty': (_req, res) => void res.send(''),
};

/** The body node was handed for each answer: a string or a Buffer. */
function appWith(send: boolean, ends: string[], etag = false): Express {
  const app = express();
  app.set('etag', etag);
  if (send) app.response.send = textSend(app.response.send);
  app.use((_req, res, next) => {
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      ends.push(Buffer.isBuffer(args[0]) ? 'buffer' : typeof args[0]);
      return end(...args);
    }) as Response['end'];
    next();
  });
  for (const [path, handler] of Object.entries(ROUTES)) app.all(path, handler);
  return app;
}

/** What a client sees of an answer: status, headers but Date, body bytes. */
async function seen(app: Express, method: 'get' | 'head', path: string, headers: Record<string, string> = {}) {
  const agent = request(app);
  const res = await (method === 'get' ? agent.get(path) : agent.head(path))
    .set(headers)
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
  const { date: _date, ...rest } = res.headers as Record<string, string>;
  return { status: res.status, headers: rest, body: (res.body as Buffer).toString('hex') };
}

describe('res.send of a text (textSend)', () => {
  it('when a route sends a text, then status, headers and body are exactly those of Express’s own send, for every way the gateway sends', async () => {
    const plain = appWith(false, []);
    const ours = appWith(true, []);
    const cases: [string, 'get' | 'head', Record<string, string>?][] = [
      ...Object.keys(ROUTES).map((p) => [p, 'get'] as [string, 'get']),
      ['/long', 'head'],
      ['/json', 'head'],
      ['/etag-header', 'get', { 'If-None-Match': '"v1"' }],
      ['/etag-header', 'get', { 'If-None-Match': '"v2"' }],
    ];
    for (const [path, method, headers] of cases) {
      const theirs = await seen(plain, method, path, headers);
      expect(await seen(ours, method, path, headers), `${method.toUpperCase()} ${path}`).toEqual(theirs);
    }
    // the cases cover what differs: a charset replaced, a 304, a 204 without body, a HEAD without body
    expect((await seen(ours, 'get', '/other-charset')).headers['content-type']).toBe('text/plain; charset=utf-8');
    expect((await seen(ours, 'get', '/etag-header', { 'If-None-Match': '"v1"' })).status).toBe(304);
    expect((await seen(ours, 'get', '/long')).headers['content-length']).toBe(String(Buffer.byteLength(LONG)));
  });

  it('when an HTTP/1.0 client asks, then the Content-Length is Express’s too (node writes it only for HTTP/1.1)', async () => {
    const raw = async (app: Express, path: string) => {
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.write(`GET ${path} HTTP/1.0\r\nHost: x\r\n\r\n`);
      const chunks: Buffer[] = [];
      for await (const c of socket) chunks.push(c as Buffer);
      server.close();
      const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const lines = head!.split('\r\n').filter((l) => !/^date:/i.test(l));
      return { lines: lines.sort(), body };
    };
    for (const path of ['/long', '/xml', '/status-201']) {
      const ours = await raw(appWith(true, []), path);
      expect(ours, path).toEqual(await raw(appWith(false, []), path));
      expect(ours.lines).toContain(`Content-Length: ${Buffer.byteLength(ours.body!)}`);
    }
  });

  it('when a route sends a long text, then node is handed the text (to append to the response head), where Express hands it a Buffer', async () => {
    const theirs: string[] = [];
    const ours: string[] = [];
    await request(appWith(false, theirs)).get('/long');
    await request(appWith(true, ours)).get('/long');
    expect(theirs).toEqual(['buffer']);
    expect(ours).toEqual(['string']);
    // a Buffer stays a Buffer; with an ETag function the app gets Express's send, ETag included
    const buffers: string[] = [];
    await request(appWith(true, buffers)).get('/buffer');
    expect(buffers).toEqual(['buffer']);
    const tagged = await request(appWith(true, [], true)).get('/long');
    expect(tagged.headers.etag).toMatch(/^W\/"/);
  });

  it('when the gateway answers a page, then it is sent as text with its type and byte length', async () => {
    const gw = makeGateway({ name: 'send-text' });
    const res = await request(createApp(gw.deps)).get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(res.text.length).toBeGreaterThan(1000);
    expect(createApp(gw.deps).response.send).not.toBe(express.response.send);
    await gw.close();
  });
});
