#!/usr/bin/env node
// Runs the TypeScript sources directly (no build); oclif registers tsx (a devDependency) itself.
import { execute } from '@oclif/core';

// oclif maps dist/commands to commands/ and then warns that it cannot map the already-mapped
// source paths again; the commands load from source all the same, so that warning is noise.
const writeStderr = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) =>
  String(chunk).includes('Could not find source for') ? true : writeStderr(chunk, ...rest);

await execute({ development: true, dir: import.meta.url });
