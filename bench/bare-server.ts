import express from 'express';

/**
 * The baseline: a bare Express route that parses a JSON body (up to 2 KB here) and answers a small JSON.
 * It runs in its own process, as the gateway does, so both are measured the same way.
 */
const app = express();
app.disable('x-powered-by');
app.post('/bare', express.json({ limit: '1mb', type: () => true }), (req, res) => {
  const body = req.body as Record<string, unknown>;
  res.json({ ok: true, fields: Object.keys(body).length });
});
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
