/**
 * The database belongs to one chain. At the first contact with the node (`init`, `serve`, the
 * workers' first tick) the node's genesis block id is read and recorded; from then on a node that
 * answers another genesis block is refused with both ids named. For mainnet and Nile the id must
 * also be the network's known one (config/networks.json): a Nile node behind a mainnet name, or
 * the other way round, would credit test tokens as money. A devnet's chain is new every time it is
 * started without a state file, so any id is taken at first contact, then held like the others.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config, TronNetwork } from '../config.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import type { TronClient } from './client.js';
import { fullNodeUrl, knownGenesisId } from './networks.js';
import { createTronClient } from './tronweb-client.js';

export interface ChainIdentity {
  network: string;
  genesis_block_id: string;
  recorded_at: string;
}

export async function recordedChain(db: Executor): Promise<ChainIdentity | undefined> {
  return db
    .selectFrom('chain_identity')
    .select(['network', 'genesis_block_id', 'recorded_at'])
    .where('id', '=', 1)
    .executeTakeFirst();
}

/** The node's genesis block id (throws the client's error when the node cannot answer). */
export async function nodeGenesisId(chain: Pick<TronClient, 'getBlockId'>): Promise<string> {
  const id = await chain.getBlockId(0);
  if (id === null)
    throw new AppError(
      'wrong_network',
      'The node answered no genesis block (block 0): it is not a usable TRON full node',
    );
  return id;
}

/**
 * Refuses `genesisId` unless it is the network's and the recorded one; records it when nothing
 * is recorded yet. Returns what the database now holds.
 */
export async function pinChain(db: Db, clock: Clock, network: TronNetwork, genesisId: string): Promise<ChainIdentity> {
  const known = knownGenesisId(network);
  if (known !== null && genesisId !== known) {
    throw new AppError(
      'wrong_network',
      `The node answers genesis block ${genesisId}, but the ${network} genesis block is ${known}: it is not a ${network} node (check TRON_FULL_NODE_URL and TRON_NETWORK)`,
    );
  }
  return writeTx(db, async (trx) => {
    const held = await recordedChain(trx);
    if (held && held.genesis_block_id !== genesisId) {
      throw new AppError(
        'wrong_network',
        `This database belongs to the chain whose genesis block is ${held.genesis_block_id} (${held.network}, recorded ${held.recorded_at}), but the node answers genesis block ${genesisId}: it serves another chain (check TRON_FULL_NODE_URL)`,
      );
    }
    if (held) return held;
    const row = { network, genesis_block_id: genesisId, recorded_at: clock.now().toISOString() };
    await trx
      .insertInto('chain_identity')
      .values({ id: 1, ...row })
      .execute();
    return row;
  });
}

/** Reads the node's genesis block and holds it against the database's (pinChain). */
export async function checkChain(
  db: Db,
  clock: Clock,
  network: TronNetwork,
  chain: Pick<TronClient, 'getBlockId'>,
): Promise<ChainIdentity> {
  return pinChain(db, clock, network, await nodeGenesisId(chain));
}

/** A short look at start: a node that does not answer must not keep `serve` or `init` from starting. */
const START_TIMEOUT_MS = 5_000;

/**
 * `serve` and `init` at start: refuses a node of another chain (wrong_network); a node that cannot
 * be reached is only logged (null): the workers check again before their first use of it.
 */
export async function checkChainAtStart(
  db: Db,
  clock: Clock,
  config: Config,
  logger: Logger | null,
): Promise<ChainIdentity | null> {
  const chain = createTronClient({
    fullHost: fullNodeUrl(config),
    apiKey: config.tronApiKey,
    timeoutMs: START_TIMEOUT_MS,
    retries: 1,
  });
  try {
    return await checkChain(db, clock, config.tronNetwork, chain);
  } catch (e) {
    if (e instanceof AppError) throw e;
    logger?.warn(
      { err: e },
      "could not read the node's genesis block at start; the workers check it before they use the node",
    );
    return null;
  } finally {
    await chain.close?.();
  }
}

/**
 * For the background workers: the chain is checked once per process before the first tick that
 * uses the node (a node that was down when `serve` started). Until it passes, each tick fails with
 * the reason and is retried with the worker host's backoff.
 */
export class ChainGate {
  private checked: Promise<unknown> | null = null;

  constructor(
    private readonly s: {
      db: Db;
      clock: Clock;
      config: Pick<Config, 'tronNetwork'>;
      chain: Pick<TronClient, 'getBlockId'>;
    },
  ) {}

  async pass(): Promise<void> {
    this.checked ??= checkChain(this.s.db, this.s.clock, this.s.config.tronNetwork, this.s.chain).catch(
      (e: unknown) => {
        this.checked = null;
        throw e;
      },
    );
    await this.checked;
  }
}
