import { authoriseBody } from './bodies.js';
import { parseOrThrow } from '../src/http/schemas/common.js';
import { authoriseSchema } from '../src/http/schemas/payment-request.js';
import { parseBodyText } from '../src/http/middleware/body.js';
import { canonicalJson } from '../src/core/kernel/fingerprint.js';
const texts = Array.from({ length: 2000 }, authoriseBody);
const bodies = texts.map((t) => parseBodyText(t));
function time(name: string, f: (i: number) => unknown) {
  for (let i = 0; i < 4000; i++) f(i % 2000);
  const n = 20000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f(i % 2000);
  console.log(name.padEnd(20), (Number(process.hrtime.bigint() - t) / 1e3 / n).toFixed(1), 'µs');
}
time('parseBodyText', (i) => parseBodyText(texts[i]!));
time('parseOrThrow', (i) => parseOrThrow(authoriseSchema, bodies[i]));
time('zod safeParse', (i) => authoriseSchema.safeParse(bodies[i]));
time('canonicalJson', (i) => canonicalJson(bodies[i]));
