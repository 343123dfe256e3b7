/** Starts a bench server script in a child process (tsx) and reads its first JSON line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface ChildOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof']. */
  nodeArgs?: string[];
}

export async function startChild<T>(
  script: string,
  opts: ChildOptions = {},
): Promise<{ info: T; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      '--import',
      'tsx',
      path.resolve(import.meta.dirname, '..', script),
      ...(opts.args ?? []),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, ...opts.env },
    },
  );
  const lines = createInterface({ input: child.stdout! });
  // The server's log lines (pino JSON with a `level`) may come first: passed on to stderr.
  const first = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      if (/^\{"level":\d+/.test(line)) process.stderr.write(`${line.slice(0, 300)}\n`);
      else {
        lines.removeAllListeners('line');
        resolve(line);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { info: JSON.parse(first) as T, child };
}

/** Stops a child started above and waits for it to exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** A memory field of a process in MB (Linux /proc status: VmRSS, VmHWM, RssAnon…), or NaN elsewhere. */
export function statusMb(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Resident set size of a process in MB, or NaN. */
export const rssMb = (pid: number): number => statusMb(pid, 'VmRSS');

/** CPU seconds (user + system) a process has used so far (Linux /proc; ticks of 10 ms), or NaN. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
