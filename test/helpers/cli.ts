/** Runs the real CLI (bin/dev.js, TypeScript sources) as a child process. */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const DEV_BIN = path.resolve(import.meta.dirname, '../../bin/dev.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export function runCli(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEV_BIN, ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      cwd: cwd ?? process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown = undefined;
      try {
        json = JSON.parse(stdout);
      } catch {
        /* human output */
      }
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
  });
}
