import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { chain } from '../../../src/http/middleware/chain.js';

/** An app with one chained layer, then a route that reports what the chain did, then an error handler. */
function appWith(...handlers: RequestHandler[]) {
  const app = express();
  const seen: string[] = [];
  app.use(chain(...handlers.map((h, i) => ((req, res, next) => (seen.push(`m${i}`), h(req, res, next))) as RequestHandler)));
  app.get('/after', (_req, res) => {
    res.json({ seen });
  });
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
    res.status(418).json({ error: err.message, seen });
  };
  app.use(onError);
  return app;
}

const pass: RequestHandler = (_req, _res, next) => next();

describe('chain: several middlewares run as one layer, with Express rules', () => {
  it('when every middleware calls next, then each runs once, in order, and the app goes on past the chain', async () => {
    const res = await request(appWith(pass, pass, pass)).get('/after');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ seen: ['m0', 'm1', 'm2'] });
  });

  it('when a middleware answers, then the ones after it and the app stack do not run', async () => {
    const res = await request(appWith(pass, (_req, res) => void res.status(202).send('answered'), pass)).get('/after');
    expect(res.status).toBe(202);
    expect(res.text).toBe('answered');
  });

  it('when a middleware throws, calls next(err) or rejects, then the error handler gets that error and nothing after runs', async () => {
    const thrown = await request(
      appWith(
        pass,
        () => {
          throw new Error('thrown');
        },
        pass,
      ),
    ).get('/after');
    expect(thrown.status).toBe(418);
    expect(thrown.body).toEqual({ error: 'thrown', seen: ['m0', 'm1'] });

    const passed = await request(appWith((_req, _res, next) => next(new Error('passed')), pass)).get('/after');
    expect(passed.body).toEqual({ error: 'passed', seen: ['m0'] });

    const rejected = await request(
      appWith(pass, (async () => {
        await Promise.resolve();
        throw new Error('rejected');
      }) as RequestHandler),
    ).get('/after');
    expect(rejected.body).toEqual({ error: 'rejected', seen: ['m0', 'm1'] });
  });

  it('when an async middleware calls next later, then the chain goes on from there', async () => {
    const later: RequestHandler = (_req, _res, next) => void setTimeout(next, 5);
    const res = await request(appWith(later, pass)).get('/after');
    expect(res.body).toEqual({ seen: ['m0', 'm1'] });
  });

  it('when a router in the chain has routes, then they answer and stay listed in its stack for the route table', async () => {
    const pages = Router();
    pages.get('/page', (_req, res) => void res.send('page'));
    const chained = chain(pass, pages as unknown as RequestHandler);
    expect(chained.stack.some((l) => (l.route as { path?: string } | undefined)?.path === '/page')).toBe(true);
    const app = express();
    app.use(chained);
    expect((await request(app).get('/page')).text).toBe('page');
    expect((await request(app).get('/other')).status).toBe(404);
  });
});
