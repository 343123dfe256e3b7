#!/usr/bin/env node
// Runs the TypeScript sources directly (no build); oclif registers tsx (a devDependency) itself.
import { Plugin, execute } from '@oclif/core';
import { fileURLToPath } from 'node:url';

// oclif maps dist/commands to commands/ and then warns that it cannot map the already-mapped
// source paths again; the commands load from source all the same, so that warning is noise.
const writeStderr = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) =>
  String(chunk).includes('Could not find source for') ? true : writeStderr(chunk, ...rest);

// The commands are read from the sources, never from the oclif.manifest.json a build wrote: the
// sources may have changed since.
process.env.NODE_ENV = 'development';
const root = fileURLToPath(new URL('..', import.meta.url));
const plugin = new Plugin({ root, isRoot: true, ignoreManifest: true });
await plugin.load();
await execute({ development: true, loadOptions: { root, plugins: new Map([[plugin.name, plugin]]) } });
