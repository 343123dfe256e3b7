/**
 * The four OpenAPI documents (/v1, the console /admin/v1, the cabinet /cabinet/v1 and the payment
 * page /pay/v1) equal their checked-in snapshots: moving route files between folders must not
 * change a path, a schema, an error body or the order of anything. A deliberate change of a route
 * regenerates the snapshots with `npm run openapi:snapshots` and shows in the diff.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildAdminOpenApiDocument,
  buildCabinetOpenApiDocument,
  buildOpenApiDocument,
  buildPayOpenApiDocument,
  type OpenApiDocument,
} from '../../src/http/openapi-doc.js';

const snapshot = (name: string) => readFileSync(new URL(`./openapi-snapshots/${name}.json`, import.meta.url), 'utf8');

// The snapshot is the text `paygate openapi` writes, so the comparison is of bytes, key order included.
const text = (doc: OpenApiDocument) => `${JSON.stringify(doc, null, 2)}\n`;

describe('the OpenAPI documents of the four listeners', () => {
  it.each([
    ['v1', buildOpenApiDocument],
    ['admin', buildAdminOpenApiDocument],
    ['cabinet', buildCabinetOpenApiDocument],
    ['pay', buildPayOpenApiDocument],
  ] as const)(
    '%s equals its snapshot',
    async (name, build) => {
      const served = text(await build());
      expect(served.length).toBeGreaterThan(1000);
      expect(served).toBe(snapshot(name));
    },
    120_000,
  );
});
