/**
 * `report invoices|payouts|deposits|ledger --from --to [--merchant] [--format csv|json] [--output F]`:
 * one command shape for the four reports of src/reports. The report streams to stdout, or to F:
 * written under a temporary name beside it and put in place only once complete, so a failed or
 * interrupted export never leaves a partial file under the name asked for. On a terminal, its
 * progress shows on stderr (src/cli/progress.ts).
 */
import { Flags } from '@oclif/core';
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, unlinkSync, writeSync, existsSync } from 'node:fs';
import path from 'node:path';
import { loadCatalog } from '../assets/catalog.js';
import { AppError } from '../errors.js';
import { openReport, REPORT_FORMATS, type ReportFormat, type ReportKind } from '../reports/service.js';
import { PaygateCommand } from './base.js';
import { idFlag } from './flags.js';
import { record } from './format.js';
import { progressBar } from './progress.js';

const DESCRIPTIONS: Record<ReportKind, string> = {
  invoices: 'Invoices created in the period [from, to), one row each, oldest first (docs/reports.md)',
  payouts: 'Payouts requested in the period [from, to), one row each, oldest first (docs/reports.md)',
  deposits:
    'Deposits whose block time is in the period [from, to) (orphaned ones excluded), one row each, oldest first (docs/reports.md)',
  ledger:
    'The ledger over the period [from, to): per merchant and asset the opening balance, every entry and the closing balance (docs/reports.md)',
};

const flags = {
  from: Flags.string({
    required: true,
    description: 'start of the period, included: a date (2026-03-01 = midnight UTC) or an ISO 8601 time with its zone',
  }),
  to: Flags.string({ required: true, description: 'end of the period, excluded (same forms)' }),
  merchant: idFlag('only this merchant'),
  format: Flags.string({ options: [...REPORT_FORMATS], default: 'csv', description: 'csv (RFC 4180) or json' }),
  output: Flags.string({
    description: 'write the report to this file (refused if it exists); without it the report goes to stdout',
  }),
};

export interface ReportSummary {
  kind: ReportKind;
  from: string;
  to: string;
  merchant_id: string | null;
  format: ReportFormat;
  output: string;
  rows: number;
  bytes: number;
  /** SHA-256 of the file: the same period gives the same bytes, so the same digest. */
  sha256: string;
}

/** Writes text to a sink: a file descriptor, or stdout with its backpressure. */
type Sink = (text: string) => Promise<void>;

function stdoutSink(): Sink {
  return (text) =>
    new Promise<void>((resolve, reject) => {
      const ok = process.stdout.write(text, (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else process.stdout.once('drain', resolve);
    });
}

export function reportCommand(kind: ReportKind) {
  return class extends PaygateCommand {
    static override description = DESCRIPTIONS[kind];
    static override examples = [
      `<%= config.bin %> report ${kind} --from 2026-03-01 --to 2026-04-01 --output ${kind}-2026-03.csv`,
      `<%= config.bin %> report ${kind} --from 2026-03-01T00:00:00Z --to 2026-03-02T00:00:00Z --merchant 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --format json`,
    ];
    static override flags = flags;

    async run(): Promise<ReportSummary | undefined> {
      const { flags: f } = await this.parse({ flags, baseFlags: PaygateCommand.baseFlags, enableJsonFlag: true });
      const json = this.jsonEnabled();
      if (json && f.output === undefined)
        throw new AppError(
          'invalid_argument',
          '--json prints a summary of the report written with --output F; without --output the report itself goes to stdout (--format json for a JSON report)',
        );
      if (f.output !== undefined && existsSync(f.output))
        throw new AppError('invalid_argument', `${f.output} already exists; refusing to overwrite it`);
      const ctx = await this.context();
      const progress = progressBar(`report ${kind}`, 'rows', { json });
      let rows = 0;
      const report = await openReport(
        { db: ctx.database.scans, catalog: loadCatalog(ctx.config.tronNetwork) },
        { kind, from: f.from, to: f.to, merchantId: f.merchant ?? null, format: f.format as ReportFormat },
        {
          onProgress: (n) => {
            rows = n;
            progress.update(n);
          },
        },
      );
      let written: Awaited<ReturnType<typeof writeFileAtomically>>;
      try {
        if (f.output === undefined) {
          const sink = stdoutSink();
          for await (const chunk of report.chunks) await sink(chunk);
          return undefined;
        }
        written = await writeFileAtomically(f.output, report.chunks);
      } finally {
        progress.stop();
      }
      const summary: ReportSummary = {
        kind,
        from: report.period.from,
        to: report.period.to,
        merchant_id: report.merchantId,
        format: report.format,
        output: f.output,
        rows,
        ...written,
      };
      this.say(record({ ...summary }));
      return summary;
    }
  };
}

/** Writes the chunks to a temporary file beside `file`, then links it under `file` (never replacing one). */
async function writeFileAtomically(
  file: string,
  chunks: AsyncIterable<string>,
): Promise<{ bytes: number; sha256: string }> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
  const fd = openSync(temp, 'wx', 0o600);
  const digest = createHash('sha256');
  let bytes = 0;
  let closed = false;
  try {
    for await (const chunk of chunks) {
      const buf = Buffer.from(chunk, 'utf8');
      writeSync(fd, buf);
      digest.update(buf);
      bytes += buf.length;
    }
    fsyncSync(fd);
    closeSync(fd);
    closed = true;
    try {
      linkSync(temp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST')
        throw new AppError('invalid_argument', `${file} already exists; refusing to overwrite it`);
      throw e;
    }
  } finally {
    if (!closed) closeSync(fd);
    unlinkSync(temp);
  }
  return { bytes, sha256: digest.digest('hex') };
}
