/**
 * The real `paygate serve` as a child process (bin/dev.js, the same command an operator runs),
 * started and stopped by the soak: SIGTERM must end it with exit code 0, SIGKILL ends it at any
 * moment. An exit the soak did not ask for is a crash, and a violation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SERVE_NODE_FLAGS } from '../../../src/operations/heap.js';
import { servedUrl } from '../../helpers/serve-log.js';

const DEV_BIN = path.resolve(import.meta.dirname, '../../../bin/dev.js');
const START_TIMEOUT_MS = 60_000;
const SIGTERM_GRACE_MS = 30_000;

export interface ServeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class ServeProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<ServeExit> | null = null;
  private stopping = false;
  private stderrTail = '';
  url: string | null = null;
  starts = 0;
  /** Exits nobody asked for, with the end of their stderr. */
  readonly crashes: string[] = [];

  private readonly logFile: WriteStream | null;

  /** `logPath`: every `serve`'s stdout and stderr are appended there (for a failure's diagnosis). */
  private readonly reportDir: string | null;

  constructor(
    private readonly env: Record<string, string>,
    logPath?: string,
  ) {
    this.logFile = logPath ? createWriteStream(logPath, { flags: 'a' }) : null;
    this.reportDir = logPath ? path.dirname(logPath) : null;
  }

  close(): void {
    this.logFile?.end();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.url !== null;
  }

  async start(): Promise<string> {
    const report = this.reportDir
      ? ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${this.reportDir}`]
      : [];
    const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, ...report, DEV_BIN, 'serve'], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.stopping = false;
    this.stderrTail = '';
    this.starts += 1;
    this.logFile?.write(`--- serve start ${this.starts} at ${new Date().toISOString()}\n`);
    child.stderr?.on('data', (d) => {
      this.stderrTail = (this.stderrTail + String(d)).slice(-4000);
      this.logFile?.write(d);
    });
    child.stdout?.on('data', (d) => this.logFile?.write(d));
    this.exited = new Promise<ServeExit>((resolve) =>
      child.once('exit', (code, signal) => {
        if (!this.stopping)
          this.crashes.push(
            `serve (pid ${child.pid}) exited by itself: code ${code}, signal ${signal}; stderr: ${this.stderrTail}`,
          );
        if (this.child === child) {
          this.child = null;
          this.url = null;
        }
        resolve({ code, signal });
      }),
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', () => undefined); // keep the pipe drained
    const banner = new Promise<string>((resolve) => lines.on('line', (l) => servedUrl(l) !== null && resolve(l)));
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), START_TIMEOUT_MS).unref());
    const line = await Promise.race([banner, this.exited.then(() => null), timeout]);
    if (line === null) {
      child.kill('SIGKILL');
      throw new Error(`serve did not start: ${this.stderrTail}`);
    }
    this.url = servedUrl(line) as string;
    return this.url;
  }

  /** Stops the process with `signal`; returns how it exited (null when none was running). */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<ServeExit | null> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) return null;
    this.stopping = true;
    this.url = null;
    child.kill(signal);
    if (signal === 'SIGKILL') return exited;
    // Past the grace period: a diagnostic report (JS stack, open handles) first, then SIGKILL.
    const late = setTimeout(() => {
      this.logFile?.write(
        `--- serve (pid ${child.pid}) still running ${SIGTERM_GRACE_MS} ms after SIGTERM: diagnostic report, then SIGKILL\n`,
      );
      child.kill('SIGUSR2');
      setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
    }, SIGTERM_GRACE_MS);
    const exit = await exited;
    clearTimeout(late);
    return exit;
  }
}
