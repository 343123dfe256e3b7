/** Runs every benchmark in bench/ one after another (npm run bench). */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const skip = new Set(['run-all.ts']);
const benches = readdirSync(dir).filter((f) => f.endsWith('.ts') && !skip.has(f) && !f.endsWith('-server.ts')).sort();
let failed = 0;
for (const b of benches) {
  console.log(`\n== ${b}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, b)], { stdio: 'inherit' });
  if (r.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
