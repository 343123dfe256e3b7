#!/usr/bin/env node
// Runs the TypeScript sources directly (no build); oclif registers tsx (a devDependency) itself.
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
