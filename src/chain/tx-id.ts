/**
 * txID = sha256(raw_data bytes). Apart from tx-codec.ts (which needs tronweb's protobuf classes) so
 * that checking a transaction's id never loads tronweb.
 */
import { hash } from 'node:crypto';

/** txID = sha256(raw_data bytes), lower-case hex without 0x. */
export function txIdOf(rawDataHex: string): string {
  return hash('sha256', Buffer.from(rawDataHex, 'hex'), 'hex');
}
