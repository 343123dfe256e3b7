/** The decision records' index lists every record, in order, as the records themselves say. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADR_DIR, adrIndex, adrRecords } from '../../scripts/adr-index.js';

describe('docs/adr/README.md', () => {
  it('is the index the records make (node --import tsx scripts/adr-index.ts rewrites it)', async () => {
    expect(readFileSync(path.join(ADR_DIR, 'README.md'), 'utf8')).toBe(await adrIndex());
  });

  it('gives each record a number of its own, the one its file name starts with', () => {
    const records = adrRecords();
    for (const r of records) expect(r.file.startsWith(`${r.number}-`), r.file).toBe(true);
    expect(new Set(records.map((r) => r.number)).size).toBe(records.length);
  });
});
