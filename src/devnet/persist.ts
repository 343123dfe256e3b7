/**
 * `--state FILE`: the devnet's chain (blocks, head state, pool, solid height) as JSON so a devnet
 * restarts with its history. Written atomically (temp file + rename); bigints as decimal strings.
 * Only the head state is stored, so after a restart forks can reach back to the restart height.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { StoredBlock, StoredTx } from './block.js';
import { DevnetChain, type ChainOptions } from './chain.js';
import { cloneState, emptyState, type Account, type Permission, type WorldState } from './state.js';

const FORMAT = 'paygate-devnet-state/1';

interface StateFile {
  format: string;
  solidNumber: number;
  forkEpoch: number;
  blocks: StoredBlock[];
  pool: StoredTx[];
  headState: {
    accounts: [string, Record<string, unknown>][];
    tokens: [string, [string, string][]][];
    delegations: [string, string][];
    blacklist?: string[];
    permissions?: [string, Permission][];
  };
}

const BIG_FIELDS = [
  'balance',
  'frozenEnergy',
  'frozenBandwidth',
  'delegatedOutEnergy',
  'delegatedOutBandwidth',
  'acquiredEnergy',
  'acquiredBandwidth',
] as const;

function encodeState(s: WorldState): StateFile['headState'] {
  return {
    accounts: [...s.accounts].map(([k, a]) => {
      const o: Record<string, unknown> = { ...a };
      for (const f of BIG_FIELDS) o[f] = a[f].toString();
      return [k, o];
    }),
    tokens: [...s.tokens].map(([c, m]) => [c, [...m].map(([h, v]) => [h, v.toString()] as [string, string])]),
    delegations: [...s.delegations].map(([k, v]) => [k, v.toString()]),
    blacklist: [...s.blacklist],
    permissions: [...s.permissions],
  };
}

function decodeState(j: StateFile['headState']): WorldState {
  const s = emptyState();
  for (const [k, o] of j.accounts) {
    const a = { ...o } as unknown as Account;
    for (const f of BIG_FIELDS) a[f] = BigInt(String(o[f] ?? '0'));
    s.accounts.set(k, a);
  }
  for (const [c, entries] of j.tokens) s.tokens.set(c, new Map(entries.map(([h, v]) => [h, BigInt(v)])));
  for (const [k, v] of j.delegations) s.delegations.set(k, BigInt(v));
  for (const k of j.blacklist ?? []) s.blacklist.add(k);
  for (const [k, p] of j.permissions ?? []) s.permissions.set(k, p);
  return s;
}

export function saveChain(chain: DevnetChain, file: string): void {
  const headState = chain.snapshots.get(chain.head.number) ?? chain.live;
  const data: StateFile = {
    format: FORMAT,
    solidNumber: chain.solidNumber,
    forkEpoch: chain.forkEpoch,
    blocks: chain.blocks,
    pool: chain.pool,
    headState: encodeState(headState),
  };
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(data));
  renameSync(tmp, file);
}

/** The chain stored in `file`, or null when the file does not exist yet. */
export function loadChain(file: string, opts: ChainOptions): DevnetChain | null {
  if (!existsSync(file)) return null;
  const data = JSON.parse(readFileSync(file, 'utf8')) as StateFile;
  if (data.format !== FORMAT) throw new Error(`${file} is not a devnet state file (${String(data.format)})`);
  const chain = new DevnetChain(opts);
  chain.blocks = data.blocks;
  chain.solidNumber = data.solidNumber;
  chain.forkEpoch = data.forkEpoch;
  for (const b of chain.blocks) for (const t of b.txs) chain.index.set(t.tx.txID, b.number);
  const head = decodeState(data.headState);
  chain.snapshots.set(chain.head.number, head);
  // The solidity API reads the state at the solid height; after a restart the head state stands in.
  chain.snapshots.set(chain.solidNumber, head);
  chain.live = cloneState(head);
  for (const t of data.pool) chain.broadcast(t.tx);
  return chain;
}
