/**
 * The java-tron HTTP API subset paygate and tronweb use, under `/wallet/*` and `/walletsolidity/*`
 * on one port (as TronGrid serves them). Same JSON shapes as java-tron: hex addresses unless
 * `visible: true`, default values omitted, `{}` for absent blocks and transactions, `{"Error"}`
 * for malformed requests. The solidity twins only see blocks up to the solid height.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { TronWeb, utils } from 'tronweb';
import { accountJson, accountNetJson, accountResourceJson } from './account-json.js';
import { blockJson, infoJson, toVisible, type BlockJsonCache, type StoredBlock } from './block.js';
import { buildTransaction, refOf } from './builder.js';
import type { DevnetChain } from './chain.js';
import { evaluateTokenCall } from './execute.js';
import { tokenByHex } from './keys.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Params = Record<string, any>;
type Answer = unknown | { raw: string | Buffer | Buffer[] };

const MAX_RANGE = 100;
const hexMsg = (m: string) => Buffer.from(m, 'utf8').toString('hex');

function toHex(a: unknown): string | null {
  if (typeof a !== 'string' || a === '') return null;
  try {
    const h = (a.startsWith('T') ? TronWeb.address.toHex(a) : a).toLowerCase();
    return /^41[0-9a-f]{40}$/.test(h) ? h : null;
  } catch {
    return null;
  }
}

function int(v: unknown): number | null {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) ? n : null;
}

function visibleOf(p: Params): boolean {
  return p.visible === true || p.visible === 'true';
}

function callData(p: Params): string {
  if (typeof p.data === 'string' && p.data !== '') return p.data.replace(/^0x/, '');
  if (typeof p.function_selector !== 'string') return '';
  const selector = utils.ethersUtils
    .keccak256(Buffer.from(p.function_selector.replace(/\s*/g, ''), 'utf8'))
    .slice(2, 10);
  return selector + String(p.parameter ?? '').replace(/^0x/, '');
}

const RANGE_OPEN = Buffer.from('{"block":[');
const COMMA = Buffer.from(',');
const RANGE_CLOSE = Buffer.from(']}');

export function registerWalletRoutes(app: FastifyInstance, chain: DevnetChain, cache: BlockJsonCache): void {
  const raw = (s: string | Buffer | Buffer[]) => ({ raw: s });
  const blockAnswer = (b: StoredBlock | undefined, visible: boolean) => (b ? raw(cache.block(b, visible)) : {});

  const rangeAnswer = (p: Params, limit: number): Answer => {
    const start = int(p.startNum);
    const end = int(p.endNum);
    if (start === null || end === null) return { Error: 'startNum and endNum must be integers' };
    // java-tron answers an empty object for an empty, reversed or too long (> 100) range.
    if (start < 0 || end <= start || end - start > MAX_RANGE) return {};
    const parts: Buffer[] = [];
    for (let n = start; n < end && n <= limit; n++) {
      const b = chain.blocks[n];
      if (b) parts.push(parts.length === 0 ? RANGE_OPEN : COMMA, ...cache.blockBytes(b, visibleOf(p)));
    }
    // Sent as its parts: one 35 MB Buffer.concat per answer was most of the devnet's CPU in
    // bench/watcher.ts on a machine where first-touched memory is slow.
    return parts.length === 0 ? {} : raw([...parts, RANGE_CLOSE]);
  };

  const getBlock = (p: Params, limit: number): Answer => {
    const detail = p.detail === true || p.detail === 'true';
    let b: StoredBlock | undefined;
    if (p.id_or_num === undefined || p.id_or_num === '') b = chain.blocks[limit];
    else if (/^\d+$/.test(String(p.id_or_num))) b = chain.blockByNum(Number(p.id_or_num));
    else b = chain.blockById(String(p.id_or_num));
    if (!b || b.number > limit) return {};
    if (detail) return blockAnswer(b, visibleOf(p));
    const json = blockJson(b, false);
    return visibleOf(p) ? toVisible(json) : json;
  };

  const txById = (p: Params, limit: number): Answer => {
    const found = chain.findTx(String(p.value ?? ''));
    if (!found?.block || found.block.number > limit) return {};
    return visibleOf(p) ? toVisible(found.stored.tx) : found.stored.tx;
  };

  const infoById = (p: Params, limit: number): Answer => {
    const found = chain.findTx(String(p.value ?? ''));
    if (!found?.block || found.block.number > limit) return {};
    return infoJson(found.block, found.stored);
  };

  const infosByNum = (p: Params, limit: number): Answer => {
    const n = int(p.num);
    if (n === null) return { Error: 'num must be an integer' };
    const b = chain.blockByNum(n);
    return b && b.number <= limit ? raw(cache.infosBytes(b)) : [];
  };

  const constantCall = (p: Params, solid: boolean, estimate: boolean): Answer => {
    const contract = toHex(p.contract_address);
    const owner = toHex(p.owner_address) ?? '410000000000000000000000000000000000000000';
    if (!contract || !tokenByHex(contract))
      return {
        result: { code: 'CONTRACT_VALIDATE_ERROR', message: hexMsg('No contract or not a valid smart contract') },
      };
    const state = solid ? chain.stateAtSolid() : chain.live;
    const outcome = evaluateTokenCall(state, contract, owner, callData(p));
    if (outcome.result === 'REVERT') {
      return {
        result: { code: 'CONTRACT_EXE_ERROR', message: hexMsg('REVERT opcode executed') },
        energy_used: outcome.energy,
        constant_result: [''],
      };
    }
    if (estimate) return { result: { result: true }, energy_required: outcome.energy };
    const tx = buildTransaction(
      'TriggerSmartContract',
      { owner_address: owner, contract_address: contract, data: callData(p) },
      refOf(chain.head),
    );
    return {
      result: { result: true },
      energy_used: outcome.energy,
      constant_result: [outcome.output],
      transaction: { ...tx, ret: [{}] },
    };
  };

  /** Server-side transaction building (createtransaction, triggersmartcontract, freeze, delegate, TRC-10, vote, permissions). */
  const build = (
    type: string,
    p: Params,
    fields: Record<string, unknown>,
    opts: { feeLimit?: number } = {},
  ): Answer => {
    const owner = toHex(p.owner_address);
    if (!owner) return { Error: 'Invalid ownerAddress' };
    if (!chain.live.accounts.has(owner)) return { Error: `Validate ${type} error, no OwnerAccount.` };
    const tx = buildTransaction(type, { owner_address: owner, ...fields }, refOf(chain.head), opts);
    return visibleOf(p) ? toVisible(tx) : tx;
  };

  const full = (): number => chain.head.number;
  const solid = (): number => chain.solidNumber;
  const routes: Record<string, (p: Params) => Answer> = {
    '/wallet/getnowblock': (p) => blockAnswer(chain.head, visibleOf(p)),
    '/walletsolidity/getnowblock': (p) => blockAnswer(chain.solid, visibleOf(p)),
    '/wallet/getblock': (p) => getBlock(p, full()),
    '/walletsolidity/getblock': (p) => getBlock(p, solid()),
    '/wallet/getblockbynum': (p) => blockAnswer(chain.blockByNum(int(p.num) ?? -1), visibleOf(p)),
    '/walletsolidity/getblockbynum': (p) => {
      const n = int(p.num) ?? -1;
      return n <= solid() ? blockAnswer(chain.blockByNum(n), visibleOf(p)) : {};
    },
    '/wallet/getblockbyid': (p) => blockAnswer(chain.blockById(String(p.value ?? '')), visibleOf(p)),
    '/wallet/getblockbylimitnext': (p) => rangeAnswer(p, full()),
    '/walletsolidity/getblockbylimitnext': (p) => rangeAnswer(p, solid()),
    '/wallet/getblockbylatestnum': (p) => {
      const n = Math.min(MAX_RANGE, Math.max(1, int(p.num) ?? 1));
      return rangeAnswer({ ...p, startNum: Math.max(0, full() - n + 1), endNum: full() + 1 }, full());
    },
    '/wallet/gettransactionbyid': (p) => txById(p, full()),
    '/walletsolidity/gettransactionbyid': (p) => txById(p, solid()),
    '/wallet/gettransactioninfobyid': (p) => infoById(p, full()),
    '/walletsolidity/gettransactioninfobyid': (p) => infoById(p, solid()),
    '/wallet/gettransactioninfobyblocknum': (p) => infosByNum(p, full()),
    '/walletsolidity/gettransactioninfobyblocknum': (p) => infosByNum(p, solid()),
    '/wallet/getaccount': (p) => accountJson(chain.live, toHex(p.address) ?? '', chain.head.timestamp, visibleOf(p)),
    '/walletsolidity/getaccount': (p) =>
      accountJson(chain.stateAtSolid(), toHex(p.address) ?? '', chain.solid.timestamp, visibleOf(p)),
    '/wallet/getaccountresource': (p) => accountResourceJson(chain.live, toHex(p.address) ?? '', chain.head.timestamp),
    '/wallet/getaccountnet': (p) => accountNetJson(chain.live, toHex(p.address) ?? '', chain.head.timestamp),
    '/wallet/triggerconstantcontract': (p) => constantCall(p, false, false),
    '/walletsolidity/triggerconstantcontract': (p) => constantCall(p, true, false),
    '/wallet/estimateenergy': (p) => constantCall(p, false, true),
    '/walletsolidity/estimateenergy': (p) => constantCall(p, true, true),
    '/wallet/createtransaction': (p) => {
      const to = toHex(p.to_address);
      if (!to) return { Error: 'Invalid toAddress!' };
      return build('TransferContract', p, { to_address: to, amount: int(p.amount) ?? 0 });
    },
    '/wallet/triggersmartcontract': (p) => {
      const contract = toHex(p.contract_address);
      if (!contract || !tokenByHex(contract))
        return {
          result: { code: 'CONTRACT_VALIDATE_ERROR', message: hexMsg('No contract or not a valid smart contract') },
        };
      const fields: Record<string, unknown> = { contract_address: contract, data: callData(p) };
      if (int(p.call_value)) fields.call_value = int(p.call_value);
      const tx = build('TriggerSmartContract', p, fields, { feeLimit: int(p.fee_limit) ?? 0 }) as Params;
      return tx.Error ? tx : { result: { result: true }, transaction: tx };
    },
    '/wallet/freezebalancev2': (p) =>
      build('FreezeBalanceV2Contract', p, {
        frozen_balance: int(p.frozen_balance) ?? 0,
        resource: p.resource ?? 'BANDWIDTH',
      }),
    '/wallet/delegateresource': (p) =>
      build('DelegateResourceContract', p, {
        receiver_address: toHex(p.receiver_address) ?? '',
        balance: int(p.balance) ?? 0,
        resource: p.resource ?? 'BANDWIDTH',
        lock: p.lock === true,
      }),
    '/wallet/undelegateresource': (p) =>
      build('UnDelegateResourceContract', p, {
        receiver_address: toHex(p.receiver_address) ?? '',
        balance: int(p.balance) ?? 0,
        resource: p.resource ?? 'BANDWIDTH',
      }),
    '/wallet/transferasset': (p) => {
      const to = toHex(p.to_address);
      if (!to) return { Error: 'Invalid toAddress!' };
      const name = String(p.asset_name ?? '');
      // The token id as text when `visible`, else its bytes in hex (java-tron's JSON of bytes).
      const hex = visibleOf(p) ? Buffer.from(name, 'utf8').toString('hex') : name.toLowerCase();
      return build('TransferAssetContract', p, { to_address: to, asset_name: hex, amount: int(p.amount) ?? 0 });
    },
    '/wallet/votewitnessaccount': (p) => {
      const votes = Array.isArray(p.votes) ? (p.votes as Params[]) : [];
      const parsed = votes.map((v) => ({ vote_address: toHex(v.vote_address), vote_count: int(v.vote_count) ?? 0 }));
      if (parsed.some((v) => v.vote_address === null)) return { Error: 'Invalid vote address!' };
      return build('VoteWitnessContract', p, { votes: parsed });
    },
    '/wallet/accountpermissionupdate': (p) => {
      const permission = (q: Params | undefined) => {
        if (!q || typeof q !== 'object') return undefined;
        const keys = Array.isArray(q.keys) ? (q.keys as Params[]) : [];
        const out: Params = {
          ...q,
          keys: keys.map((k) => ({ address: toHex(k.address) ?? '', weight: int(k.weight) ?? 0 })),
        };
        return out;
      };
      const fields: Record<string, unknown> = {};
      if (p.owner) fields.owner = permission(p.owner);
      if (p.witness) fields.witness = permission(p.witness);
      if (Array.isArray(p.actives)) fields.actives = (p.actives as Params[]).map(permission);
      return build('AccountPermissionUpdateContract', p, fields);
    },
    '/wallet/broadcasttransaction': (p) => chain.broadcast(p),
    '/wallet/getchainparameters': () => ({
      chainParameter: [
        { key: 'getTransactionFee', value: 1000 },
        { key: 'getEnergyFee', value: 100 },
        { key: 'getCreateAccountFee', value: 100000 },
        { key: 'getCreateNewAccountFeeInSystemContract', value: 1000000 },
        { key: 'getFreeNetLimit', value: 600 },
      ],
    }),
    '/wallet/getenergyprices': () => ({ prices: '0:100' }),
    '/wallet/getbandwidthprices': () => ({ prices: '0:1000' }),
    '/wallet/getnodeinfo': () => ({
      block: `Num:${chain.head.number},ID:${chain.head.id}`,
      solidityBlock: `Num:${chain.solid.number},ID:${chain.solid.id}`,
      configNodeInfo: { codeVersion: 'paygate-devnet' },
    }),
  };

  for (const [path, handler] of Object.entries(routes)) {
    app.route({
      method: ['GET', 'POST'],
      url: path,
      handler: async (req, reply) => {
        const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Params;
        if (body.__invalidJson !== undefined)
          return reply.send({ Error: 'com.alibaba.fastjson.JSONException: invalid JSON body' });
        let answer: Answer;
        try {
          answer = handler({ ...(req.query as Params), ...body });
        } catch (e) {
          // java-tron reports request-handling exceptions as HTTP 200 `{"Error"}` answers.
          answer = {
            Error: `class java.lang.IllegalArgumentException : ${e instanceof Error ? e.message : String(e)}`,
          };
        }
        reply.type('application/json; charset=utf-8');
        if (answer && typeof answer === 'object' && 'raw' in answer) {
          const body = (answer as { raw: unknown }).raw;
          if (typeof body === 'string' || Buffer.isBuffer(body)) return reply.send(body);
          if (Array.isArray(body)) {
            reply.header(
              'content-length',
              body.reduce((n: number, b: Buffer) => n + b.length, 0),
            );
            return reply.send(Readable.from(body, { objectMode: false }));
          }
        }
        return reply.send(JSON.stringify(answer));
      },
    });
  }
}
