// Entry of a worker thread started from the TypeScript sources (runtime/threads.ts): registers
// tsx in this thread, then runs the worker module named by the first argument.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2]);
