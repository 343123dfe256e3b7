/** Test helper: `count` concurrent creations against a pool, each as the allocator makes one. */
import type { DepositAddressPool } from '../../src/wallet/pool.js';

export async function burstOfCreations(
  pool: DepositAddressPool,
  count: number,
): Promise<{ index: number; address: string }[]> {
  let next = 0;
  return Promise.all(
    Array.from({ length: count }, async () => {
      const claim = await pool.reserve();
      const index = next++; // the database's index counter
      const address = pool.addressAt(index, claim);
      await new Promise((r) => setImmediate(r)); // the rest of the creation
      claim.release();
      return { index, address };
    }),
  );
}
