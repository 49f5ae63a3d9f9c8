/**
 * The house's import rules, checked by `npm run lint` (dependency-cruiser): no import circle, the
 * verifier core free of the framework and the database, the domain free of the database drivers, the
 * SDK free of the server, and no room of lib reaching into the app.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: the files cannot be read (or loaded) one before the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'verifier-is-pure',
      severity: 'error',
      comment: 'lib/verifier is the pure verifier core: no Next.js, no Prisma, no database, no request plumbing.',
      from: { path: '^lib/verifier/' },
      to: { path: ['^lib/(db|api|jobs|accounts|auth|results|checks)/', '^node_modules/(next|@prisma|pg|better-sqlite3)/'] },
    },
    {
      name: 'domain-not-on-drivers',
      severity: 'error',
      comment:
        'lib/accounts, lib/jobs and lib/results never hold a database driver: what differs by database is a plan or a named query of lib/db (byDialect is refused there by biome.jsonc).',
      from: { path: '^lib/(accounts|jobs|results)/' },
      to: { path: '^node_modules/(better-sqlite3|pg)/' },
    },
    {
      name: 'sdk-stands-alone',
      severity: 'error',
      comment: 'lib/sdk is published on its own: it imports nothing of the server.',
      from: { path: '^lib/sdk/src/' },
      to: { path: '^(lib/(?!sdk/)|app/|components/)' },
    },
    {
      name: 'lib-below-app',
      severity: 'error',
      comment: 'lib serves the app and the components, never the other way.',
      from: { path: '^lib/' },
      to: { path: '^(app|components)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^lib/db/generated/', '\\.test\\.ts$', '^lib/sdk/test/'] },
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
