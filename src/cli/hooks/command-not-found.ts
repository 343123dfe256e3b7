/** oclif hook: an unknown command answers in the CLI's error shape (JSON with --json) and exits 2. */
import type { Hook } from '@oclif/core';

const hook: Hook.CommandNotFound = async function (opts) {
  const message = `Unknown command "${opts.id.replace(/:/g, ' ')}"; run "paygate --help" for the list of commands`;
  if (opts.argv?.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: { code: 'invalid_argument', message } }, null, 2)}\n`);
  } else {
    process.stderr.write(`Error (invalid_argument): ${message}\n`);
  }
  process.exitCode = 2;
  return true;
};

export default hook;
