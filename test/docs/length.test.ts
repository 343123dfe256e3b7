/**
 * Documents stay readable: no hand-written Markdown document of the repository over 1,000 lines
 * (the API references generated from the OpenAPI documents are exempt; they are read by search).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GENERATED = new Set(['docs/api.md', 'docs/admin-api.md', 'docs/cabinet-api.md', 'docs/pay-api.md']);

function markdown(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return markdown(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}

describe('documents', () => {
  it('no hand-written document is over 1,000 lines', () => {
    const files = ['README.md', ...markdown('docs'), ...markdown('deploy')].filter((f) => !GENERATED.has(f));
    expect(files.length).toBeGreaterThan(20);
    const long = files
      .map((f) => ({ f, lines: readFileSync(path.join(ROOT, f), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 1000);
    expect(long).toEqual([]);
  });
});
