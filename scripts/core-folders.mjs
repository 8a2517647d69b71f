// Folds src/core's imports to its first-level folders (an import from a file in A of a file in B is an arrow
// A -> B) and prints the arrows, the circles (folders that reach each other) and the arrows that run against
// the order of CORE_LAYERS in .dependency-cruiser.js (docs/architecture.md, "Layers"). Exits 1 on any.
//   node scripts/core-folders.mjs      (runs dependency-cruiser itself)
//   npx depcruise src --config .dependency-cruiser.js --output-type json | node scripts/core-folders.mjs -
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import console from 'node:console';
import process from 'node:process';
import { CORE_LAYERS } from '../.dependency-cruiser.js';

const json =
  process.argv[2] === '-'
    ? readFileSync(0, 'utf8')
    : execFileSync('npx', ['depcruise', 'src', '--config', '.dependency-cruiser.js', '--output-type', 'json'], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
const folder = (path) => /^src\/core\/([^/]+)\//.exec(path)?.[1];

/** "A->B" -> the number of imports */
const arrows = new Map();
for (const m of JSON.parse(json).modules) {
  const from = folder(m.source);
  if (!from) continue;
  for (const d of m.dependencies) {
    const to = folder(d.resolved);
    if (to && to !== from) arrows.set(`${from}->${to}`, (arrows.get(`${from}->${to}`) ?? 0) + 1);
  }
}
const nodes = [...new Set([...arrows.keys()].flatMap((k) => k.split('->')))].sort();
const out = new Map(nodes.map((n) => [n, []]));
for (const k of arrows.keys()) {
  const [a, b] = k.split('->');
  out.get(a).push(b);
}

// Tarjan's strongly connected components: each of more than one folder is a circle
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
const visit = (v) => {
  index.set(v, index.size);
  low.set(v, index.get(v));
  stack.push(v);
  onStack.add(v);
  for (const w of out.get(v)) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) !== index.get(v)) return;
  const circle = [];
  for (let w = stack.pop(); ; w = stack.pop()) {
    onStack.delete(w);
    circle.push(w);
    if (w === v) break;
  }
  if (circle.length > 1) circles.push(circle.sort());
};
for (const n of nodes) if (!index.has(n)) visit(n);

const rank = new Map(CORE_LAYERS.flatMap((layer, i) => layer.map((f) => [f, i])));
const against = [...arrows].filter(([k]) => {
  const [a, b] = k.split('->');
  return !rank.has(a) || !rank.has(b) || rank.get(b) >= rank.get(a);
});

const total = [...arrows.values()].reduce((s, n) => s + n, 0);
console.log(`${nodes.length} folders, ${arrows.size} arrows (${total} imports)`);
for (const [k, n] of [...arrows].sort()) console.log(`  ${k} ${n}`);
console.log(`${circles.length} circle(s)`);
for (const c of circles) console.log(`  ${c.length} folders: ${c.join(' ')}`);
console.log(`${against.length} arrow(s) not downward in CORE_LAYERS (or naming a folder it does not list)`);
for (const [k, n] of against) console.log(`  ${k} ${n}`);
process.exitCode = circles.length || against.length ? 1 : 0;
