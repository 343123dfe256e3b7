/**
 * A fenced database handle (database.ts, `fencedDb`): every write transaction opened on it first
 * runs a check (the worker lease's, runtime/lease.ts), and a write issued on it outside such a
 * transaction is refused here, before it reaches the database. So code handed the handle has no
 * way to write without the check: a forgotten `writeTx` fails loudly in tests instead of writing
 * unfenced in production.
 */
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, RootOperationNode } from 'kysely';

/** A write was issued on a fenced handle outside a fenced transaction: a programming error. */
export class UnfencedWriteError extends Error {
  constructor(kind: string) {
    super(`a ${kind} on a fenced database handle outside writeTx: background writes run in fenced transactions`);
    this.name = 'UnfencedWriteError';
  }
}

const WRITE_NODES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
/** Statements a raw `sql` template may hold that change data or schema. */
const RAW_WRITE = /\b(insert|update|delete|merge|create|drop|alter|truncate|replace)\b/i;

interface RawLike {
  kind: 'RawNode';
  sqlFragments: readonly string[];
  parameters: readonly OperationNode[];
}

/** The SQL text of a raw node and the raw nodes nested in it (sql.join, sql.raw, templates). */
function rawText(node: OperationNode): string {
  if (node.kind !== 'RawNode') return '';
  const raw = node as unknown as RawLike;
  return [...raw.sqlFragments, ...raw.parameters.map(rawText)].join(' ');
}

/** `select … for update` reads; anything else a raw template writes is refused. */
function rawWrites(node: OperationNode): boolean {
  return RAW_WRITE.test(rawText(node).replace(/\bfor\s+(no\s+key\s+)?update\b/gi, ''));
}

export class RefuseUnfencedWrites implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const { node } = args;
    if (WRITE_NODES.has(node.kind) || (node.kind === 'RawNode' && rawWrites(node)))
      throw new UnfencedWriteError(
        node.kind === 'RawNode' ? 'raw write' : node.kind.replace('QueryNode', '').toLowerCase(),
      );
    return node;
  }

  transformResult: KyselyPlugin['transformResult'] = async (args) => args.result;
}
