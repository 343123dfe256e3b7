/** Pieces every console schema shares: path parameters, nullable fields, times, pages, errors. */
import { Type, type TSchema } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.js';
import { errorResponses, Uuid } from '../../http/schemas.js';

export { Uuid };

export { Page } from '../../http/pagination.js';
export { PageQuery };

export const Nullable = <T extends TSchema>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description ? { description } : {});
export const Time = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Amount = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
/** An asset code as the path names it; one outside the catalog is answered by the route's own code. */
export const AssetParam = Type.String({ minLength: 1, maxLength: 40, description: 'Asset code, e.g. USDT_TRON' });

export const MerchantParams = Type.Object({ merchant_id: Uuid('The merchant') }, { additionalProperties: false });

/** Error responses every console operation documents besides its own. */
export const errors = (...statuses: number[]) =>
  errorResponses(...[...new Set([400, 401, 429, 503, ...statuses])].sort((a, b) => a - b));

/** The error responses of an operation with a JSON body. */
export const bodyErrors = (...statuses: number[]) => errors(413, 415, ...statuses);
