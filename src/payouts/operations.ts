/**
 * Payout halts as monitoring sees them (halts.ts): a gauge per scope and brake, and a `/readyz`
 * detail. A halt never makes the process unready: the instance still serves invoices, deposits and
 * the replays of payouts, and a halt is the operator's own decision (after `paygate restore` it
 * stays until `payout resume --worker`); the alert rule in deploy/prometheus reminds of it.
 */
import type { MetricSource, ReadinessCheck, Sample } from '../operations/registry.js';
import { ALL_ASSETS, haltStates, listHalts, type HaltBrake } from './halts.js';

const BRAKES: readonly HaltBrake[] = ['requests', 'worker'];

export const PAYOUT_HALTS_METRIC: MetricSource = {
  name: 'paygate_payouts_halted',
  help: 'Whether a payout brake is on (1) or off (0), by scope ("*" = every asset, or an asset code) and brake (requests: new POST /v1/payouts refused; worker: nothing signed or sent); paygate payout resume lifts it',
  labelNames: ['scope', 'brake'],
  async collect(s) {
    const halts = await haltStates(s.db);
    const samples: Sample[] = BRAKES.map((brake) => ({ labels: { scope: ALL_ASSETS, brake }, value: 0 }));
    for (const h of halts) {
      for (const brake of BRAKES) {
        const on = brake === 'requests' ? h.requests_halted : h.worker_halted;
        const known = samples.find((x) => x.labels?.scope === h.scope && x.labels.brake === brake);
        if (known) known.value = on ? 1 : 0;
        else samples.push({ labels: { scope: h.scope, brake }, value: on ? 1 : 0 });
      }
    }
    return samples;
  },
};

export const PAYOUT_HALTS_READINESS: ReadinessCheck = {
  name: 'payouts',
  async check(s) {
    const halts = await listHalts(s.db);
    return {
      ok: true,
      halted: halts.length > 0,
      ...(halts.length > 0 ? { alert: 'payouts halted (paygate payout resume)', halts } : {}),
    };
  },
};
