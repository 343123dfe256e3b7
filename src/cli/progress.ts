/**
 * Progress of long operator commands (restore, migrate-to, backup, reports) on a terminal, drawn
 * by cli-progress on stderr. Only for a person watching: with `--json`, or when stderr is not a
 * terminal (a script, a pipe, a log collector), nothing is written, so the output stays what the
 * command prints.
 */
import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` of `total`; without a total, a running count of `unit`. */
  update(done: number, total?: number): void;
  stop(): void;
}

const SILENT: Progress = { update: () => undefined, stop: () => undefined };

/** A bar labelled `label` counting `unit` (rows, pages, addresses), or nothing off a terminal. */
export function progressBar(label: string, unit: string, opts: { json: boolean }): Progress {
  if (opts.json || !process.stderr.isTTY) return SILENT;
  let bar: SingleBar | null = null;
  let counted = false;
  return {
    update(done, total) {
      if (bar === null) {
        counted = total === undefined;
        bar = new SingleBar(
          {
            stream: process.stderr,
            format: counted
              ? `${label} {value} ${unit} | {duration_formatted}`
              : `${label} {bar} {percentage}% | {value}/{total} ${unit} | {duration_formatted}`,
            hideCursor: true,
            clearOnComplete: false,
          },
          Presets.shades_classic,
        );
        bar.start(total ?? 0, 0);
      }
      if (total !== undefined && !counted) bar.setTotal(total);
      bar.update(done);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
