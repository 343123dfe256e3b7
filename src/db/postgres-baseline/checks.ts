/** The CHECKs of money and flags, which SQLite spells with GLOB patterns and lists. */

/** Base units: a canonical non-negative integer ("0", "15", never "015" or ""). */
export const units = (c: string) => `${c} ~ '^(0|[1-9][0-9]*)$'`;
/** Base units as invoices keep them: at most 78 digits (2^256). */
export const units78 = (c: string) => `${units(c)} and length(${c}) <= 78`;
export const unitsOrNull = (c: string) => `${c} is null or ${units(c)}`;
export const flag = (c: string) => `${c} in (0, 1)`;
