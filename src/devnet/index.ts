/**
 * `startDevnet`: a simulated java-tron full node on one HTTP port (fastify), embeddable in tests,
 * benchmarks and `paygate demo`, and run standalone by `paygate devnet`.
 */
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import { BlockJsonCache } from './block.js';
import { DevnetChain, SLOT_MS } from './chain.js';
import { createControl, registerControlRoutes, type DevnetControl } from './control.js';
import { FaultInjector } from './faults.js';
import { DEVNET_TOKENS, FUNDED_ACCOUNT_COUNT, type DevnetToken } from './keys.js';
import { loadChain, saveChain } from './persist.js';
import { registerWalletRoutes } from './wallet-routes.js';

export type { DevnetControl, DevnetInfo, Balances } from './control.js';
export type { DevnetToken } from './keys.js';
export type { FaultSpec, Fault, FaultKind } from './faults.js';
export type { ForkMode, ForkReport } from './chain.js';
export { DEVNET_TOKENS, tokenByAsset } from './keys.js';

export interface DevnetOptions {
  /** 0 = any free port (default). */
  port?: number;
  host?: string;
  /** Block production interval; 0 = only on demand (control.mine). Default 3000. */
  blockTimeMs?: number;
  /** Solid height = head − solidLag. Default 19. */
  solidLag?: number;
  /** JSON file to restore from (if present) and persist to after every block and on close. */
  stateFile?: string;
  clock?: Clock;
  /** Funded test accounts (default 5). */
  accounts?: number;
  /** A pino logger for requests; default silent. */
  logger?: FastifyBaseLogger;
}

export interface DevnetAccountInfo {
  address: string;
  /** Throwaway test key, public by design. */
  privateKey: string;
}

export interface Devnet {
  url: string;
  tokens: DevnetToken[];
  accounts: DevnetAccountInfo[];
  control: DevnetControl;
  close(): Promise<void>;
}

export async function startDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const blockTimeMs = opts.blockTimeMs ?? 3_000;
  const solidLag = opts.solidLag ?? 19;
  // Blocks faster than mainnet's 3 s slots get slots of their own length, so block timestamps keep
  // to wall time (expiry and late-deposit rules compare them with it).
  const slotMs = blockTimeMs > 0 ? Math.min(blockTimeMs, SLOT_MS) : SLOT_MS;
  const chainOpts = {
    clock: opts.clock ?? systemClock,
    solidLag,
    slotMs,
    accounts: opts.accounts ?? FUNDED_ACCOUNT_COUNT,
  };
  let chain = opts.stateFile ? loadChain(opts.stateFile, chainOpts) : null;
  if (!chain) {
    chain = new DevnetChain(chainOpts).genesis();
    // Block 0 prints no `number` (proto3 default), which tronweb's reference-block code cannot read.
    chain.mine(1);
  }
  const stateFile = opts.stateFile;
  if (stateFile) {
    chain.onBlock = () => saveChain(chain, stateFile);
    saveChain(chain, stateFile);
  }

  const faults = new FaultInjector();
  const app = Fastify({ loggerInstance: opts.logger, forceCloseConnections: true, bodyLimit: 16 * 1024 * 1024 });
  // java-tron accepts any content type and an empty body; an unparsable body gets an `{"Error"}` answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body ?? '').trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, { __invalidJson: true });
    }
  });
  app.addHook('onRequest', async (req, reply) => faults.apply(req, reply));
  app.addHook('onSend', async (req, reply, payload) => faults.loseAnswer(req, reply, payload));
  const cache = new BlockJsonCache();
  registerWalletRoutes(app, chain, cache);
  const control = createControl(chain, faults, { blockTimeMs, solidLag });
  registerControlRoutes(app, control);

  await app.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const host = opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let timer: NodeJS.Timeout | null = null;
  if (blockTimeMs > 0) {
    timer = setInterval(() => {
      try {
        chain.mine(1);
      } catch (e) {
        app.log.error({ err: e }, 'block production failed');
      }
    }, blockTimeMs);
    timer.unref();
  }

  let closed = false;
  return {
    url,
    tokens: [...DEVNET_TOKENS],
    accounts: chain.funded.map((k) => ({ address: k.address, privateKey: k.privateKey })),
    control,
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      faults.releaseHanging();
      await app.close();
      if (stateFile) saveChain(chain, stateFile);
    },
  };
}
