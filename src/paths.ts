/** Files shipped beside the code (config/): found from src/ under tsx and from dist/src when built. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

/** The directory holding paygate's package.json. */
export function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the paygate package root (package.json)');
    dir = up;
  }
  root = dir;
  return dir;
}

/** A file of the shipped config/ folder. */
export function configFile(name: string): string {
  return path.join(packageRoot(), 'config', name);
}
