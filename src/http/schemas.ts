/** Schemas shared by every surface's routes: the error body, the common error responses, ids and codes. */
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'Code from the Errors table' }),
        message: Type.String({ description: 'English text for humans; must not be parsed' }),
        details: Type.Optional(
          Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
            description: 'Only with validation_failed: every problem found',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, $id: 'ErrorBody', title: 'Error' },
);

const ref = Type.Ref('ErrorBody');

/** Response schemas for the documented error statuses of a route. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ref]));
}

/** printable ASCII 0x21–0x7E, 1 to 200 characters (order_id, reference, external_user_id). */
export const PrintableId = (description: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7E]+$', description });

/**
 * Text shown to customers (a description, a merchant's name): no control characters and no
 * bidirectional controls (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), which can make a
 * page show text in another order than it is stored.
 */
export const DISPLAY_TEXT_PATTERN = '^[^\\u0000-\\u001F\\u007F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]+$';

/** Whether a text holds a bidirectional control character. */
export const hasBidiControl = (text: string): boolean => /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(text);

/** Two parts of uppercase letters and digits joined by `_` (USDT_TRON). */
export const AssetCode = Type.String({ pattern: '^[A-Z0-9]+_[A-Z0-9]+$', description: 'Asset code, e.g. USDT_TRON' });

export const AmountText = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** A UUID in its canonical 8-4-4-4-12 hex form (either case; ajv's `uuid` format alone also takes `urn:uuid:`). */
export const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', pattern: UUID, ...(description ? { description } : {}) });

export const UuidParams = Type.Object({ id: Uuid() }, { additionalProperties: false });

/** A string enum as one `enum` (TypeBox unions of literals print as anyOf lists in OpenAPI). */
export function StringEnum<const T extends readonly string[]>(values: T, description?: string): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
}

/** Whose switch keeps a merchant off (console and cabinet alike); empty when it is enabled. */
export const DisabledBy = Type.Array(StringEnum(['operator', 'owner']), {
  uniqueItems: true,
  maxItems: 2,
  description:
    'Whose switch is off: "operator" (merchant disable) and/or "owner" (the cabinet); [] when enabled. Each side moves only its own.',
});
