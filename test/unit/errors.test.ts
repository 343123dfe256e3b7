/** The one error table: every code has a status of its class, and errors keep the spec's body shape. */
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_STATUS, validationFailed } from '../../src/errors.js';

describe('the error table', () => {
  it('gives every code a client or server status and a snake_case name', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
      expect([400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 429, 500, 502, 503]).toContain(status);
    }
  });

  it('puts not-found codes at 404 and conflicts of state at 409', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      if (code.endsWith('_not_found')) expect(status, code).toBe(404);
    }
    expect(ERROR_STATUS.invalid_state).toBe(409);
  });

  it('words a validation failure with the field that failed', () => {
    expect(validationFailed('body.percent', 'must be below 100').toBody()).toEqual({
      error: {
        code: 'validation_failed',
        message: 'The request failed validation',
        details: [{ path: 'body.percent', message: 'must be below 100' }],
      },
    });
  });

  it('answers other codes without details unless given', () => {
    const e = new AppError('invoice_not_found', 'No invoice has this id');
    expect(e.status).toBe(404);
    expect(e.toBody()).toEqual({ error: { code: 'invoice_not_found', message: 'No invoice has this id' } });
  });
});
