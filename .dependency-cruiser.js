// Import rules for src/, checked by `npm run lint` (dependency-cruiser). The layers are written down in
// docs/architecture.md: arrows point inward (http -> core <- store, connectors -> core), and inside core the
// folders are in the layers of CORE_LAYERS: kernel/, records/, ports/, then the capabilities in their order.

/**
 * src/core's folders in layers, bottom first (docs/architecture.md, "Layers"): a folder imports only folders of
 * the layers below its own, never one of its own layer, so the folder graph has no circle.
 * - kernel/: money, cards, dates, clock, ids, errors, signing: what everything builds on.
 * - records/: the records the capabilities keep in the store, one file per record family, with their pure
 *   rules (contract.ts): the ports name them, every capability uses them.
 * - ports/: the interfaces core depends on (store, deps, connectors, webhooks, transport, metrics), and the
 *   account's connector looked up in the registry (connector.ts).
 * - then the capabilities, each on those below it; `node scripts/core-folders.mjs` prints the folder graph.
 */
export const CORE_LAYERS = [
  ['kernel'],
  ['records'],
  ['ports'],
  ['schedule', 'clocks', 'merchants', 'idempotency', 'queries', 'home'],
  ['notifications'],
  ['payouts'],
  ['disputes'],
  ['payments'],
  ['operations', 'optimise'],
  ['authorisation', 'subscriptions', 'reconcile'],
  ['saved-cards', 'acquirers', 'portal'],
  ['checkout', 'jobs'],
];

/** One rule per folder of CORE_LAYERS: it may import itself and the layers below, nothing else of core. */
const layerRules = CORE_LAYERS.flatMap((layer, i) =>
  layer.map((folder) => ({
    name: `core-layers-${folder}`,
    severity: 'error',
    comment:
      `src/core/${folder}/ may import only ${['itself', ...CORE_LAYERS.slice(0, i).flat()].join(', ')} ` +
      '(CORE_LAYERS): a capability that needs one above it or beside it gets the function through deps, or the function moves down.',
    from: { path: `^src/core/${folder}/` },
    to: { path: '^src/core/', pathNot: `^src/core/(${[folder, ...CORE_LAYERS.slice(0, i).flat()].join('|')})/` },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle makes load order matter and hides which module is the lower one. Type-only imports ' +
        'count (tsPreCompilationDeps below): a circle of types is the same knot, and the next value import closes it.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-not-outer',
      severity: 'error',
      comment:
        'core holds the rules and knows nothing of HTTP, of the key-value adapters or of how the process is wired; ' +
        'it reaches the outside only through the interfaces in core/ports, which the outer layers implement.',
      from: { path: '^src/core/' },
      to: {
        path: ['^src/(http|store|outbound|metrics)/', '^src/(app|compose|main|cluster|config|logger)\\.ts$'],
      },
    },
    {
      name: 'core-not-connectors',
      severity: 'error',
      comment:
        'The acquirers are outside the core (src/connectors): core names what it asks of them in core/ports ' +
        '(card-connector.ts, acquirer-webhooks.ts, payout-connector.ts) and never a connector, so a new acquirer is a new folder, not a core edit.',
      from: { path: '^src/core/' },
      to: { path: '^src/connectors/' },
    },
    {
      name: 'connectors-not-outer',
      severity: 'error',
      comment:
        'A connector implements the core ports with its acquirer: it may use core (ports, kernel, records, the acquirer journal) but ' +
        'never HTTP, the store adapters or the wiring, which registers it (compose.ts).',
      from: { path: '^src/connectors/' },
      to: {
        path: ['^src/(http|store|outbound|metrics)/', '^src/(app|compose|main|cluster|config|logger)\\.ts$'],
      },
    },
    {
      name: 'acquirer-sdks-in-connectors',
      severity: 'error',
      comment:
        "Only src/connectors/ speaks an acquirer's SDK (stripe, @adyen/api-library): the rest of the gateway knows acquirers " +
        'through the core ports, so an SDK upgrade or a new acquirer touches one folder.',
      from: { pathNot: '^src/connectors/' },
      to: { path: '(^|/)node_modules/(stripe|@adyen/api-library)/' },
    },
    {
      name: 'store-not-http',
      severity: 'error',
      comment: 'The store adapters implement core/ports/store.ts; requests, responses and wiring are none of their business.',
      from: { path: '^src/store/' },
      to: { path: ['^src/http/', '^src/(app|compose|main|cluster)\\.ts$'] },
    },
    {
      name: 'http-not-store',
      severity: 'error',
      comment: 'HTTP reaches records only through core (CoreDeps.store is the port); keys are built in the store alone.',
      from: { path: '^src/http/' },
      to: { path: '^src/store/' },
    },
    ...layerRules,
    {
      name: 'core-folder-in-layers',
      severity: 'error',
      comment: 'Every folder of src/core has its place in CORE_LAYERS: a new one is added to the layer it belongs to.',
      from: { path: '^src/core/[^/]+/', pathNot: `^src/core/(${CORE_LAYERS.flat().join('|')})/` },
      to: { path: '^src/core/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // type-only imports are dependencies too: without this a circle through `import type` goes unseen
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
