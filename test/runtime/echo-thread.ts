import { parentPort } from 'node:worker_threads';

// Typed on purpose: only a TypeScript-aware thread can load this module.
const offset: number = 41;
parentPort?.on('message', (n: number) => parentPort?.postMessage(n + offset));
