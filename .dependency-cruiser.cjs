/* global module */
/**
 * Import rules of src/ (npm run cycles; CI runs it). A folder is src/<name>; the files directly in
 * src/ are the composition root and the shared kernel.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycles',
      comment: 'No import cycle between files, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'No import cycle between folders of src/: where two features react to each other, one calls the other or the owner emits a listener wired in src/app.ts.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/[^/]+' },
      to: { circular: true },
    },
    {
      name: 'infrastructure-imports-no-feature',
      comment:
        'src/http, src/db, src/chain and src/runtime import no feature folder and not the composition root; features are handed to them from src/app.ts.',
      severity: 'error',
      from: { path: '^src/(http|db|chain|runtime)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/(http|db|chain|runtime)/', '^src/(config|errors|clock|paths|money|logger)\\.ts$'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
