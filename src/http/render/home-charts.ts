/**
 * The portal home's bar charts, drawn on the server as inline SVG: no script, nothing fetched, no style
 * attribute (the portal's CSP has no 'unsafe-inline'; colours come from portal.css classes). Each chart is one
 * series, so nothing hangs on telling colours apart; its values are written beside it in words and in the
 * table behind it (views/portal/partials/chart.ejs). Bars run left to right by day in either direction of text.
 */
const WIDTH = 600;
const HEIGHT = 120;

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface ChartPoint {
  /** the day as shown (YYYY-MM-DD) */
  label: string;
  /** the value drawn; undefined: no value that day (a rate with nothing answered), drawn as a dot on the base line */
  value: number | undefined;
  /** the value in words, for the bar's tooltip */
  text: string;
}

/**
 * The SVG of one chart: a bar a day scaled to the highest value (or to `max`), the base line, and a line at
 * the top of the scale. `titleId` and `descId` name the text alternative (the chart's caption and summary),
 * which `role="img"` hands to screen readers in place of the bars.
 */
export function barChartSvg(points: readonly ChartPoint[], titleId: string, descId: string, max?: number): string {
  const top = max ?? Math.max(0, ...points.map((p) => p.value ?? 0));
  const step = WIDTH / Math.max(1, points.length);
  const gap = step > 8 ? 2 : step > 4 ? 1 : 0;
  const bars = points
    .map((p, i) => {
      const x = (i * step + gap / 2).toFixed(1);
      const w = Math.max(1, step - gap).toFixed(1);
      if (p.value === undefined)
        return `<rect class="none" x="${x}" y="${HEIGHT - 2}" width="${w}" height="2"><title>${escape(`${p.label}: ${p.text}`)}</title></rect>`;
      const h = top > 0 ? Math.max(p.value > 0 ? 2 : 0, (p.value / top) * (HEIGHT - 4)) : 0;
      return `<rect class="bar" x="${x}" y="${(HEIGHT - h).toFixed(1)}" width="${w}" height="${h.toFixed(1)}"><title>${escape(`${p.label}: ${p.text}`)}</title></rect>`;
    })
    .join('');
  return (
    `<svg class="chart-svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-labelledby="${titleId} ${descId}" focusable="false">` +
    `<line class="scale" x1="0" y1="1" x2="${WIDTH}" y2="1"/>${bars}<line class="base" x1="0" y1="${HEIGHT - 0.5}" x2="${WIDTH}" y2="${HEIGHT - 0.5}"/></svg>`
  );
}
