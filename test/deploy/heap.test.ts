/**
 * `paygate serve` runs with its V8 heap limit (src/operations/heap.ts) wherever it is launched:
 * the container, the systemd unit, `npm start` (the demo) and CI's run of the container's steps.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { heapLimitNotSet, SERVE_NODE_FLAGS } from '../../src/operations/heap.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const flag = SERVE_NODE_FLAGS.join(' ');

describe('the heap limit of serve', () => {
  it('is on every launcher of serve', () => {
    expect(read('Dockerfile')).toContain(
      `ENTRYPOINT ["node", ${SERVE_NODE_FLAGS.map((f) => JSON.stringify(f)).join(', ')}, "bin/run.js"]`,
    );
    expect(read('deploy/paygate.service')).toMatch(
      new RegExp(`^ExecStart=/usr/bin/node ${flag} /opt/paygate/bin/run.js serve$`, 'm'),
    );
    expect(JSON.parse(read('package.json')).scripts.start).toContain(`node ${flag} bin/run.js demo`);
    expect(read('.ci/run')).toContain(`node ${flag} bin/run.js serve`);
  });

  it('is found on the command line or in NODE_OPTIONS, in either spelling, and only there', () => {
    expect(heapLimitNotSet([...SERVE_NODE_FLAGS], '')).toBeUndefined();
    expect(heapLimitNotSet(['--max_old_space_size=2048'], '')).toBeUndefined();
    expect(heapLimitNotSet([], '--enable-source-maps --max-old-space-size=1024')).toBeUndefined();
    expect(heapLimitNotSet([], '--max-old-space-size 1024')).toBeUndefined();
    // Without one: the limit this process runs with, in MB.
    expect(heapLimitNotSet([], '')).toBeGreaterThan(100);
    expect(heapLimitNotSet(['--max-semi-space-size=16', '--cpu-prof'], '--enable-source-maps')).toBeGreaterThan(100);
  });
});
