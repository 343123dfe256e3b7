/** Rows for tests that write the tables directly (below the services). */

/** An approved, enabled merchant in per-invoice mode, as the migrations' schema stores it. */
export function merchantRow(id: string, over: { name?: string; site_url?: string | null; at?: string } = {}) {
  const at = over.at ?? '2026-01-01T00:00:00.000Z';
  return {
    id,
    name: over.name ?? 'Shop',
    address_mode: 'per_invoice' as const,
    approval: 'approved' as const,
    enabled: 1,
    owner_enabled: 1,
    site_url: over.site_url ?? null,
    return_url: null,
    cancel_url: null,
    legacy_network_fee_payer: null,
    confirmations: null,
    created_at: at,
    updated_at: at,
  };
}
