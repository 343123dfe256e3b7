/**
 * The index of the decision records (docs/adr/README.md), generated from the records themselves:
 * number, title (the first line, `# NNNN. Title`) and the first sentence of its status (`Status: …`
 * or a `## Status` section), in number order.
 *   node --import tsx scripts/adr-index.ts    # rewrite the index table
 * test/docs/adr-index.test.ts fails when the committed index differs from what this writes.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

export const ADR_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/adr');
const INDEX = path.join(ADR_DIR, 'README.md');
const TABLE_START = '| #';

interface Record {
  file: string;
  number: string;
  title: string;
  status: string;
}

function readRecord(file: string): Record {
  const text = readFileSync(path.join(ADR_DIR, file), 'utf8');
  const title = /^# (\d{4})\. (.+)$/m.exec(text);
  const status = /^Status: (.+)$/m.exec(text) ?? /^## Status\n\n(.+)$/m.exec(text);
  if (!title || !status) throw new Error(`docs/adr/${file} needs a "# NNNN. Title" line and a status`);
  // The status's first sentence: the rest of a long status is the record's to tell.
  const first = (status[1] as string).split(/\.(?: |$)/)[0] as string;
  return { file, number: title[1] as string, title: title[2] as string, status: first };
}

export function adrRecords(): Record[] {
  return readdirSync(ADR_DIR)
    .filter((f) => /^\d{4}-.+\.md$/.test(f))
    .sort()
    .map(readRecord);
}

/** docs/adr/README.md as it should read: its text above the table, then the table, then its text after. */
export async function adrIndex(): Promise<string> {
  const current = readFileSync(INDEX, 'utf8');
  const lines = current.split('\n');
  const start = lines.findIndex((l) => l.startsWith(TABLE_START));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  const rows = adrRecords().map((r) => `| ${r.number} | [${r.title}](${r.file}) | ${r.status} |`);
  const table = ['| # | Decision | Status |', '| --- | --- | --- |', ...rows];
  const text = [...lines.slice(0, start), ...table, ...lines.slice(end)].join('\n');
  return format(text, { ...(await resolveConfig(INDEX)), filepath: INDEX });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(INDEX, await adrIndex());
