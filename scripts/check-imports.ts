/**
 * `npm run cycles`: runs dependency-cruiser with the rules of .dependency-cruiser.cjs (no file
 * cycles, no folder cycles, infrastructure importing no feature) and fails on any violation that
 * is not listed as known. dependency-cruiser's own baseline (--ignore-known) softens file-level
 * violations only, so the folder cycles still open are listed by their folder edge in
 * .dependency-cruiser-known-folder-cycles.json. A listed violation that is gone is reported so the
 * lists only shrink (`--update` rewrites both).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

interface Violation {
  type: string;
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

const KNOWN_FOLDERS = '.dependency-cruiser-known-folder-cycles.json';
const KNOWN_MODULES = '.dependency-cruiser-known-violations.json';
const update = process.argv.includes('--update');

function cruise(args: string[]): string {
  const r = spawnSync('npx', ['depcruise', 'src', '--config', '.dependency-cruiser.cjs', ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return r.stdout;
}

if (update) writeFileSync(KNOWN_MODULES, cruise(['--output-type', 'baseline']));
const result = JSON.parse(cruise(['--ignore-known', KNOWN_MODULES, '--output-type', 'json'])) as {
  summary: { violations: Violation[]; ignore?: number };
};
const violations = result.summary.violations;
const folderEdges = [
  ...new Set(violations.filter((v) => v.rule.name === 'no-folder-cycles').map((v) => `${v.from} -> ${v.to}`)),
].sort();
if (update) writeFileSync(KNOWN_FOLDERS, JSON.stringify(folderEdges, null, 2) + '\n');
const known = new Set(JSON.parse(readFileSync(KNOWN_FOLDERS, 'utf8')) as string[]);

const failures = [
  ...violations
    .filter((v) => v.rule.name !== 'no-folder-cycles' && v.rule.severity === 'error')
    .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`),
  ...folderEdges.filter((e) => !known.has(e)).map((e) => `no-folder-cycles: ${e}`),
];
const gone = [...known].filter((e) => !folderEdges.includes(e));
const ignored = violations.filter((v) => v.rule.severity === 'ignore').length;
console.log(`folder edges on a cycle: ${folderEdges.length} (known ${known.size}); other known violations: ${ignored}`);
if (gone.length > 0) console.log(`no longer on a cycle (run with --update to drop them):\n  ${gone.join('\n  ')}`);
if (failures.length > 0) {
  console.error(`new import rule violations (.dependency-cruiser.cjs):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
