import request from 'supertest';
import type { TestGateway } from './gateway.js';

/** One sample of a Prometheus text: `name{a="1",b="2"} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads the exposition text (a small parser of the format, so the tests check what a scraper reads). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** GET /metrics as a loopback caller; fails the test unless it answers 200. */
export async function scrape(gw: TestGateway): Promise<Sample[]> {
  const res = await request(gw.app).get('/metrics');
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.text}`);
  return parseExposition(res.text);
}

/** The value of the one sample with that name and (at least) those labels; undefined when absent. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const hits = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]?.value;
}
