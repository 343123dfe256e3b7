/**
 * Where the secret reaches, checked by the compiler (`npm run typecheck` compiles this file): the
 * context every listener's routes and the metrics are built from has no signer, no unlocked wallet
 * and no mnemonic; only the background workers' context has the signer. Putting the signer (or the
 * wallet) back into `Services` makes the `@ts-expect-error` lines and the `expectTypeOf` checks fail.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { buildCabinetServer } from '../../src/cabinet/server.js';
import type { registerV1Routes } from '../../src/http/routes.js';
import type { buildAdminServer } from '../../src/operations/admin.js';
import type { createMetrics } from '../../src/operations/metrics.js';
import type { buildPayServer } from '../../src/pay/server.js';
import type { Services, WorkerServices } from '../../src/services.js';
import type { UnlockedWallet } from '../../src/wallet/keystore.js';
import type { Signer } from '../../src/wallet/signer.js';

/** The keys of T whose value is (or may be) an S. */
type KeysHolding<T, S> = { [K in keyof T]-?: [Extract<T[K], S>] extends [never] ? never : K }[keyof T];

type V1Context = Parameters<typeof registerV1Routes>[1];
type AdminContext = Parameters<typeof buildAdminServer>[0];
type CabinetContext = Parameters<typeof buildCabinetServer>[0];
type PayContext = Parameters<typeof buildPayServer>[0];
type MetricsContext = Parameters<typeof createMetrics>[0]['services'];

describe('the secret only where it signs', () => {
  it('no listener, route handler or metric gets a signer, an unlocked wallet or a mnemonic', () => {
    // The same object for every listener and the metrics: Services, and nothing wider.
    expectTypeOf<V1Context>().toEqualTypeOf<Services>();
    expectTypeOf<AdminContext>().toEqualTypeOf<Services>();
    expectTypeOf<CabinetContext>().toEqualTypeOf<Services>();
    expectTypeOf<PayContext>().toEqualTypeOf<Services>();
    expectTypeOf<MetricsContext>().toEqualTypeOf<Services>();
    expectTypeOf<KeysHolding<Services, Signer>>().toEqualTypeOf<never>();
    expectTypeOf<KeysHolding<Services, UnlockedWallet>>().toEqualTypeOf<never>();
    expectTypeOf<KeysHolding<Services, { mnemonic: string }>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof Services, 'signer' | 'wallet' | 'mnemonic' | 'seed'>>().toEqualTypeOf<never>();

    const reach = (s: Services) => {
      // @ts-expect-error: a route's context has no signer
      void s.signer;
      // @ts-expect-error: nor the unlocked wallet
      void s.wallet;
    };
    void reach;
  });

  it('the background workers get the signer', () => {
    expectTypeOf<WorkerServices['signer']>().toEqualTypeOf<Signer | null>();
    expectTypeOf<KeysHolding<WorkerServices, Signer>>().toEqualTypeOf<'signer'>();
  });
});
