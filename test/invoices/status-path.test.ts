/** Events follow every lifecycle step, even when one scan finds a payment already confirmed. */
import { describe, expect, it } from 'vitest';
import { statusPath } from '../../src/invoices/lifecycle.js';

describe('statusPath', () => {
  it.each([
    ['created', 'seen', ['seen']],
    ['created', 'confirmed', ['seen', 'confirmed']],
    ['created', 'settled', ['seen', 'confirmed', 'settled']],
    ['seen', 'settled', ['confirmed', 'settled']],
    ['created', 'underpaid', ['seen', 'underpaid']],
    ['expired', 'paid_late', ['paid_late']],
    ['underpaid', 'paid_late', ['paid_late']],
    // A fork moves back in one step.
    ['confirmed', 'seen', ['seen']],
    ['seen', 'created', ['created']],
  ] as const)('%s → %s reports %j', (from, to, path) => {
    expect(statusPath(from, to)).toEqual(path);
  });
});
