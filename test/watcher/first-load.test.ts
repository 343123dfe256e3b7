/**
 * The watch list's first load after a start: on its worker thread, and, should the thread fail
 * (here: it cannot open the file), on the event loop as before. Either way every deposit address
 * handed out before the start is watched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHexAddress } from '../../src/chain/address.js';
import { chainWatcher } from '../../src/workers/watcher.js';
import { startChainApp, type ChainTestApp } from './fixture.js';

describe('the first load of the watch list', () => {
  let t: ChainTestApp;
  let addresses: string[];
  beforeAll(async () => {
    t = await startChainApp();
    const { key } = await t.shop();
    addresses = [];
    for (let i = 0; i < 3; i++) addresses.push((await t.create(key, { amount: '1' })).address);
  });
  afterAll(() => t.close());

  const watches = async (databasePath: string) => {
    const s = t.app.services;
    // A directory of its own (the app's loaded from the real path already).
    const w = chainWatcher({ ...s, directory: undefined, config: { ...s.config, databasePath } }, null);
    await w.refreshWatchlist();
    // The watch list is the watcher's own: asked as the scan asks it, by a receiver's hex.
    const list = (w as unknown as { watch: { mayHold(hex: string): boolean } }).watch;
    return addresses.map((a) => list.mayHold(toHexAddress(a)));
  };

  it('on the worker thread', async () => {
    expect(await watches(t.app.config.databasePath)).toEqual([true, true, true]);
  });

  it('on the event loop when the worker thread fails', async () => {
    expect(await watches('/nonexistent/paygate.db')).toEqual([true, true, true]);
  });
});
