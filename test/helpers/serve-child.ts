/**
 * `serve` in child processes for the SIGKILL tests (sweeper, webhooks): each child script loads
 * its modules, waits for a line on stdin when CRASH_CHILD_WAIT=1, then builds the real app and
 * prints `started`. The next child is spawned while the current one runs, so a restart after a
 * kill costs the app's start, not the loading of a new process.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServeChild {
  child: ChildProcess;
  exited: Promise<void>;
}

/** In a child script, before building the app: waits for the parent's go when pre-warmed. */
export async function waitForGo(): Promise<void> {
  if (process.env.CRASH_CHILD_WAIT !== '1') return;
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.pause();
}

export class ServeChildren {
  private warm: ChildProcess | null = null;
  private readonly all: ChildProcess[] = [];

  constructor(
    private readonly script: string,
    private readonly env: () => Record<string, string | undefined>,
  ) {}

  private spawnWarm(): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', this.script], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...this.env(), CRASH_CHILD_WAIT: '1' },
    });
    this.all.push(child);
    return child;
  }

  /** Starts a child (the pre-warmed one if any) and resolves once it prints `started`. */
  start(): Promise<ServeChild> {
    const child = this.warm ?? this.spawnWarm();
    this.warm = this.spawnWarm();
    const exited = new Promise<void>((r) =>
      child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r()),
    );
    return new Promise((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d) => (err += String(d)));
      child.stdout!.on('data', (d) => String(d).includes('started') && resolve({ child, exited }));
      child.once('exit', (code) => reject(new Error(`serve child exited ${code}: ${err}`)));
      child.stdin!.end('go\n');
    });
  }

  /** SIGKILLs every child still running (the pre-warmed one included). */
  killAll(): void {
    for (const c of this.all) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}
