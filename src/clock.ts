/** Time is injected everywhere so tests and the devnet can move it; never call Date.now() in src/. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(d: Date | string): void {
    this.t = new Date(d).getTime();
  }
}

/** ISO 8601 UTC with milliseconds and `Z`, the format of every stored and returned timestamp. */
export function iso(d: Date): string {
  return d.toISOString();
}
