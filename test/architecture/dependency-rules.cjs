/**
 * Import rules that keep the layers apart, checked by dependency-cruiser: `npm run lint:deps` prints every
 * violation and fails on any, and `npm run check` (the first step of `npm test`) runs it; test/architecture/
 * dependencies.test.ts runs the same rules in the suite.
 */

/**
 * What code bundled into the workflow sandbox may import at run time (type-only imports are erased): the workflows
 * themselves, the pure code they share with the rest of the service (src/sandbox-safe/: no I/O, no Node APIs, no
 * clock or randomness), and the few packages the SDK allows.
 */
const sandboxAllowed = ['^workflows/', '^src/sandbox-safe/', '^node_modules/@temporalio/(workflow|common)/', '^node_modules/async-mutex/'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles, type-only imports included, tie modules together that should be readable one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'workflow-sandbox',
      comment:
        'Workflow code runs in a deterministic sandbox without Node APIs or I/O. It, and the shared modules it loads, may import at run time only what sandboxAllowed lists.',
      severity: 'error',
      from: { path: sandboxAllowed.filter((path) => !path.startsWith('^node_modules')) },
      to: { pathNot: sandboxAllowed, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'callers-use-contracts',
      comment:
        'Outside workflows/, a workflow is reached only through its contract module (<name>.contract.ts). The architecture test reads the registry itself.',
      severity: 'error',
      from: { pathNot: ['^workflows/', '^test/architecture/'] },
      to: { path: '^workflows/', pathNot: ['\\.contract\\.ts$'] },
    },
    {
      name: 'contracts-not-client',
      comment:
        'A workflow contract is loaded in the sandbox too: it declares the name, input, id, search attributes and messages. Starting and signalling runs is client-side code (src/temporal/starters/), which imports @temporalio/client.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^node_modules/@temporalio/(client|worker|testing|activity)/' },
    },
    {
      name: 'workflows-not-persistence',
      comment:
        "A workflow's input, state and messages are its contract's own types (or src/sandbox-safe/'s, where they are shared): an entity's edit must not change a workflow's payload unseen. So workflows/ imports nothing from src/persistence/, not even a type.",
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^src/persistence/' },
    },
    {
      name: 'media-without-dev',
      comment:
        'The media toolkit (src/media/) runs in the api and the worker of the production image, which has no devDependencies: it finds ffmpeg itself, and only src/dev/ffmpeg-tool.ts (npm start, the tests) may install one.',
      severity: 'error',
      from: { path: '^src/media/' },
      to: { path: '^src/dev/' },
    },
    {
      name: 'domain-not-its-callers',
      comment:
        "Layers point one way: the API's edge (src/api/, src/http/) and the outbox relays (src/outbox/) call the domain, never the other way round. What a domain function needs from a request comes in as data or a function (the ingest route hands over the bytes and how to parse them); the domain writes outbox rows and wakes the relays through src/persistence/outbox-channels.ts.",
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/(api|http|outbox)/' },
    },
    {
      name: 'domain-not-activities',
      comment: 'Activities call the domain, never the other way round (only the worker, in src/temporal/, builds them).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/temporal/worker\\.ts$' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'test-support-without-worker',
      comment:
        "Shared test helpers load no Temporal worker: loading @temporalio/worker costs each test file's process about 0.75 s of CPU, so only the files that run a worker (or an activity's mock environment) import it, through test/support/temporal-worker.ts or directly.",
      severity: 'error',
      from: { path: '^test/support/', pathNot: '^test/support/(temporal-worker|quiet-temporal-runtime)\\.ts$' },
      to: {
        path: ['^node_modules/@temporalio/(worker|testing)/', '^test/support/(temporal-worker|quiet-temporal-runtime)\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'console-is-a-browser-app',
      comment:
        "The console (console/) runs in the browser and knows the service only through its public API: it imports its own files and packages, and its API types are generated from the OpenAPI document (npm run console:types), never imported from src/.",
      severity: 'error',
      from: { path: '^console/' },
      to: { pathNot: ['^console/', '^node_modules/'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    // Packages are named by their path in this checkout, also where node_modules is a link (the check gate's test).
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^test/fixtures/' },
  },
};

/** Packages the Temporal workflow SDK itself brings into the bundle. */
const sdkPackages = ['^node_modules/(long|ms|nexus-rpc)/'];

// Not part of dependency-cruiser's schema (which refuses unknown keys): the tests read these to check the real
// workflow bundle against the same lists.
Object.defineProperty(module.exports, 'sandboxAllowed', { value: [...sandboxAllowed, ...sdkPackages], enumerable: false });
