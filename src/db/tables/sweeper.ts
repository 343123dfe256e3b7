/** Row types of the sweeper feature's own tables (migration 0032), joined into DB in ../schema.ts. */
import type { Generated } from 'kysely';

/**
 * open: in progress (or waiting for `retry_at` after a failed step); done: the balance moved to the
 * hot wallet; empty: nothing (left) to move; refused: the derived key did not give the address.
 */
export type SweepStatus = 'open' | 'done' | 'empty' | 'refused';
export type SweepTrigger = 'auto' | 'manual';

export interface SweepsTable {
  id: string;
  address: string;
  derivation_index: number;
  asset: string;
  trigger: SweepTrigger;
  /** The `paygate sweep` request that asked for it; null for a threshold sweep. */
  request_id: string | null;
  status: SweepStatus;
  /** Balance found on chain when the sweep began (base units of `asset`). */
  balance: string;
  /** What the transfer to the hot wallet moved; null until it is confirmed. */
  amount: string | null;
  /** TRX burned by all its transactions (sun): bandwidth, energy, account activation. */
  fee: string;
  /** TRX sent from the hot wallet to the deposit address for fees (sun). */
  top_up: string;
  /** Staked TRX delegated for energy (sun; reclaimed at the end). */
  delegated: string;
  failures: number;
  last_error: string | null;
  /** After a failed step: not before this time. */
  retry_at: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export type SweepStep = 'top_up' | 'delegate_energy' | 'transfer' | 'undelegate_energy';
export type SweepTxStatus = 'signed' | 'broadcast' | 'confirmed' | 'failed' | 'expired';

/** Every signed transaction of a sweep, stored before it is broadcast (no keys, only signed bytes). */
export interface SweepTxsTable {
  id: Generated<number>;
  sweep_id: string;
  /** 1, 2, … within its sweep; UNIQUE (sweep_id, seq) stops two signers taking the same step. */
  seq: number;
  step: SweepStep;
  /** hot: signed by the hot wallet; deposit: by the deposit address's key. */
  signer: 'hot' | 'deposit';
  txid: string;
  /** The signed transaction JSON: re-broadcast after a crash sends exactly these bytes. */
  signed: string;
  /** Sun for TRX transfers, token units for a token transfer, staked sun for (un)delegation. */
  amount: string;
  /** Transaction expiration, ms since epoch. */
  expiration: number;
  status: SweepTxStatus;
  /** Last refusal code of a broadcast (the bytes may still land; resolved by expiry). */
  broadcast_code: string | null;
  /** Receipt result (SUCCESS, REVERT, OUT_OF_ENERGY…) once in a block. */
  receipt_result: string | null;
  /** TRX burned (sun), from the transaction info. */
  fee: string | null;
  block_number: number | null;
  created_at: string;
  updated_at: string;
}

/**
 * What the sweeper last checked per deposit address and asset: final deposits up to
 * `checked_block` have been looked at; `balance` is what the node said then.
 */
export interface SweepMarksTable {
  address: string;
  asset: string;
  checked_block: number;
  balance: string;
  checked_at: string;
}

export type SweepRequestStatus = 'pending' | 'running' | 'done';

export interface SweepRequestTarget {
  address: string;
  asset: string;
  state: 'pending' | 'done' | 'empty' | 'refused';
  sweep_id: string | null;
}

/** `paygate sweep`: the CLI asks, the serve process holding the worker lease signs. */
export interface SweepRequestsTable {
  id: string;
  /** null = every deposit address with something to sweep. */
  address: string | null;
  status: SweepRequestStatus;
  /** JSON SweepRequestTarget[] once the request runs. */
  targets: string;
  actor: string;
  created_at: string;
  updated_at: string;
}

/** Per-asset sweep threshold set by the operator (`asset set --sweep-threshold`), base units. */
export interface SweepThresholdsTable {
  asset: string;
  threshold: string;
  updated_at: string;
}

export interface SweeperTables {
  sweeps: SweepsTable;
  sweep_txs: SweepTxsTable;
  sweep_marks: SweepMarksTable;
  sweep_requests: SweepRequestsTable;
  sweep_thresholds: SweepThresholdsTable;
}
