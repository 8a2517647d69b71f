// Import rules for src/, checked by `npm run lint` (dependency-cruiser). The layers are written down in
// docs/architecture.md: arrows point inward (http -> core <- store, connectors -> core), and inside core
// kernel/ is the bottom, then the record files, then ports/, then the capabilities.

/**
 * Record files: the records a capability keeps in the store (and the pure helpers beside them). Each imports
 * only kernel/ and other record files, so ports/ can name them without an import circle. A new one is named
 * `<what>-record.ts` or `<what>-records.ts`, or listed here.
 */
const RECORDS = [
  '^src/core/[^/]+/[^/]+-records?\\.ts$',
  '^src/core/payments/(payment|vault)\\.ts$',
  '^src/core/payouts/(payout|fees|fx)\\.ts$',
  '^src/core/checkout/session\\.ts$',
  '^src/core/merchants/(directory|branding)\\.ts$',
];

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
    {
      name: 'kernel-is-bottom',
      severity: 'error',
      comment:
        'kernel/ (money, cards, dates, clock, ids, errors, signing) is what every capability builds on: it imports ' +
        'only other kernel files, so any module may use it without a circle.',
      from: { path: '^src/core/kernel/' },
      to: { path: '^src/core/', pathNot: '^src/core/kernel/' },
    },
    {
      name: 'records-are-leaves',
      severity: 'error',
      comment:
        'A record file imports nothing of the core but kernel/ and other record files: the ports name records, ' +
        'and a record that reached back into a capability would close a circle through the ports.',
      from: { path: RECORDS },
      to: { path: '^src/core/', pathNot: ['^src/core/kernel/', ...RECORDS] },
    },
    {
      name: 'ports-name-only-records',
      severity: 'error',
      comment:
        'ports/ are the interfaces core depends on (store, deps, connectors, transport): they speak in kernel ' +
        "types and records, never in a capability's logic, which itself imports the ports.",
      from: { path: '^src/core/ports/' },
      to: { path: '^src/core/', pathNot: ['^src/core/(kernel|ports)/', ...RECORDS] },
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
