import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { makeGateway } from '../support/gateway.js';
import { ROOT } from '../support/paths.js';

/** The suggested alert rules of docs/deployment.md ("Monitoring"): each alert's name and PromQL expression. */
function documentedAlerts(): { alert: string; expr: string }[] {
  const doc = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
  const monitoring = doc.slice(doc.indexOf('## Monitoring'));
  const block = /```yaml\n([\s\S]*?)```/.exec(monitoring)![1]!;
  const alerts: { alert: string; expr: string }[] = [];
  let inExpr = false;
  for (const line of block.split('\n')) {
    const name = /^- alert: (\w+)/.exec(line);
    const expr = /^ {2}expr: (.*)$/.exec(line);
    if (name) {
      alerts.push({ alert: name[1]!, expr: '' });
      inExpr = false;
    } else if (expr) {
      alerts.at(-1)!.expr = expr[1]!;
      inExpr = true;
    } else if (inExpr && /^ {4}\S/.test(line)) alerts.at(-1)!.expr += ` ${line.trim()}`;
    else inExpr = false;
  }
  return alerts;
}

/** The series names a PromQL expression reads (a histogram's _bucket, _sum and _count read its base name). */
function seriesOf(expr: string): string[] {
  const names = expr.match(/\b(?:gateway|process|nodejs)_\w+/g) ?? [];
  return [...new Set(names.map((n) => n.replace(/_(bucket|sum|count)$/, '')))];
}

describe('the documented alert rules', () => {
  it('when each alert is read, then every series its expression names is one the gateway exports, with the labels it selects on', async () => {
    const gw = makeGateway({ name: 'alert-rules' });
    const text = (await request(gw.app).get('/metrics')).text;
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    const alerts = documentedAlerts();
    expect(alerts.length).toBeGreaterThan(10);
    for (const { alert, expr } of alerts) {
      expect(expr, alert).not.toBe('');
      const names = seriesOf(expr);
      expect(names.length, alert).toBeGreaterThan(0);
      for (const name of names) expect(exported.has(name), `${alert}: ${name}`).toBe(true);
      // each label selector names a label of that series (its help line lists none, so read the source's labels)
      for (const m of expr.matchAll(/\b((?:gateway)_\w+)\{(\w+)=/g)) {
        const name = m[1]!.replace(/_(bucket|sum|count)$/, '');
        expect(labelsOf(name), `${alert}: ${name}{${m[2]}}`).toContain(m[2]);
      }
    }
    // the alerts an outage needs are among them
    expect(alerts.map((a) => a.alert)).toEqual(expect.arrayContaining(['GatewayStoreDown', 'GatewayJobFailing', 'GatewayOutcomesUnknown']));
    await gw.close();
  });
});

/** The label names a gateway series is declared with (src/metrics/prometheus.ts). */
function labelsOf(name: string): string[] {
  const source = readFileSync(join(ROOT, 'src', 'metrics', 'prometheus.ts'), 'utf8');
  const at = source.indexOf(`name: '${name}'`);
  if (at < 0) return [];
  const declared = /labelNames: \[([^\]]*)\]/.exec(source.slice(at, source.indexOf('registers', at)));
  return declared ? [...declared[1]!.matchAll(/'(\w+)'/g)].map((m) => m[1]!) : [];
}
