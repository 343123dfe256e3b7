/** Starts a bench server script in a child process (tsx) and reads its first JSON line. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export async function startChild<T>(script: string): Promise<{ info: T; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '..', script)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: path.resolve(import.meta.dirname, '../..'),
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { info: JSON.parse(first) as T, child };
}
