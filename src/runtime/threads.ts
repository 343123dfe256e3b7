/**
 * Starts a worker thread from a real module file beside the caller. Built code runs the `.js`
 * file from dist/; the TypeScript sources (tests, `bin/dev.js`, benchmarks) run the `.ts` file
 * through tsx, a devDependency that is present exactly when the sources are.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * `callerUrl` is the caller's `import.meta.url`; `name` the worker module's file name without
 * extension, in the caller's folder.
 */
export function startThread(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const file = new URL(`./${name}.ts`, callerUrl).href;
  return new Worker(new URL('./ts-thread.mjs', import.meta.url), { ...options, argv: [file, ...(options.argv ?? [])] });
}
