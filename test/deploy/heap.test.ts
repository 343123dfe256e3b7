/**
 * `paygate serve` runs with its V8 heap limit (src/operations/heap.ts) wherever it is launched:
 * the container, the systemd unit, `npm start` and CI's run of the container's steps.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEAP_LIMIT_MB, heapLimitNotSet, SERVE_NODE_FLAGS } from '../../src/operations/heap.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const flag = SERVE_NODE_FLAGS.join(' ');

describe('the heap limit of serve', () => {
  it('is on every launcher of serve', () => {
    expect(read('Dockerfile')).toContain(`ENTRYPOINT ["node", ${SERVE_NODE_FLAGS.map((f) => JSON.stringify(f)).join(', ')}, "bin/run.js"]`);
    expect(read('deploy/paygate.service')).toMatch(new RegExp(`^ExecStart=/usr/bin/node ${flag} /opt/paygate/bin/run.js serve$`, 'm'));
    expect(JSON.parse(read('package.json')).scripts.start).toContain(`node ${flag} bin/run.js demo`);
    expect(read('.ci/run')).toContain(`node ${flag} bin/run.js serve`);
  });

  it('is told apart from a process started without it', () => {
    const limitOf = (args: string[]) =>
      Number(execFileSync(process.execPath, [...args, '-e', 'console.log(require("v8").getHeapStatistics().heap_size_limit)'], { encoding: 'utf8' }));
    expect(heapLimitNotSet(limitOf([...SERVE_NODE_FLAGS]))).toBeUndefined();
    // Node's default is a quarter of the machine's memory (at least 2 GiB on 64-bit machines of 8 GiB and more).
    const unset = limitOf(['--max-old-space-size=4096']);
    expect(heapLimitNotSet(unset)).toBeGreaterThan(HEAP_LIMIT_MB * 1.25);
  });
});
