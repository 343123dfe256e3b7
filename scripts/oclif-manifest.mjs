// Writes oclif.manifest.json after the build: the commands' ids, flags and files. Without it oclif
// imports every command module at each start to learn them (about a second); with it, a command
// start imports only the command it runs.
import { Plugin } from '@oclif/core';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
writeFileSync(path.join(root, 'oclif.manifest.json'), `${JSON.stringify(plugin.manifest, null, 2)}\n`);
console.log(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands`);
