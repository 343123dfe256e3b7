// The page's requests to /pay/v1, and the words a customer needs for each refusal.
import { t } from './i18n.js';
import type {
  ChoiceAnswer,
  ClaimView,
  ErrorBody,
  PayView,
  ReceiptEmailRequest,
  ReceiptView,
  RefundAddressRequest,
  ChooseAssetRequest,
} from './types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds the service asked to wait (429), when it said. */
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

/** How far the service's clock is ahead of this device's, in ms (a phone's clock may be off by minutes). */
let serverOffsetMs = 0;

function noteServerTime(date: string | null): void {
  const at = date ? Date.parse(date) : NaN;
  // The header has whole seconds: differences under two seconds are its rounding, not a wrong clock.
  if (Number.isFinite(at) && Math.abs(at - Date.now()) > 2000) serverOffsetMs = at - Date.now();
  else if (Number.isFinite(at)) serverOffsetMs = 0;
}

/** Now by the service's clock, as the deadline is: the countdown reaches zero when the service says expired. */
export const serverNow = () => Date.now() + serverOffsetMs;

async function call<T>(
  method: 'GET' | 'POST',
  path: string,
  body?: ChooseAssetRequest | ReceiptEmailRequest | RefundAddressRequest,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/pay/v1${path}`, {
      method,
      headers:
        body === undefined
          ? { accept: 'application/json' }
          : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'network', 'unreachable', null);
  }
  noteServerTime(res.headers.get('date'));
  // 204 has no body: null then.
  const data = (await res.json().catch(() => null)) as unknown;
  if (res.ok) return data as T;
  // A proxy's own error page has no such body: the status alone then speaks.
  const error = (data as Partial<ErrorBody> | null)?.error;
  const wait = Number(res.headers.get('retry-after'));
  throw new ApiError(
    res.status,
    error?.code ?? 'http_error',
    error?.message ?? `HTTP ${res.status}`,
    Number.isFinite(wait) && wait > 0 ? wait : null,
  );
}

export const readInvoice = (id: string) => call<PayView>('GET', `/invoices/${encodeURIComponent(id)}`);

export const chooseAsset = (id: string, asset: string): Promise<PayView> =>
  call<ChoiceAnswer>('POST', `/invoices/${encodeURIComponent(id)}/asset`, { asset });

export const readReceipt = (id: string) => call<ReceiptView>('GET', `/invoices/${encodeURIComponent(id)}/receipt`);

/** The optional receipt email, with the language the page speaks. */
export const leaveEmail = (id: string, email: string, language: string): Promise<void> =>
  call<null>('POST', `/invoices/${encodeURIComponent(id)}/email`, {
    email,
    language: language as ReceiptEmailRequest['language'],
  }).then(() => undefined);

export const readClaim = (id: string) => call<ClaimView>('GET', `/refunds/${encodeURIComponent(id)}`);

export const giveAddress = (id: string, address: string) =>
  call<ClaimView>('POST', `/refunds/${encodeURIComponent(id)}/address`, { address });

/** A refusal in a customer's words: what happened and what to do now. */
export function explain(error: unknown, symbol?: string): string {
  if (!(error instanceof ApiError)) return t('error.page');
  const token = { symbol: symbol ?? t('error.this_token') };
  switch (error.code) {
    case 'network':
      return t('error.network');
    case 'invoice_not_found':
      return t('error.not_found');
    case 'asset_already_selected':
      return t('error.already_selected');
    case 'invoice_expired':
      return t('error.expired');
    case 'asset_not_offered':
      return t('error.not_offered', token);
    case 'asset_payments_disabled':
    case 'asset_disabled_by_merchant':
      return t('error.disabled', token);
    case 'rate_limited':
      return error.retryAfter === null
        ? t('error.rate_limited_soon')
        : t('error.rate_limited', { seconds: error.retryAfter });
    default:
      return error.status >= 500 ? t('error.unavailable') : t('error.refused', { message: error.message });
  }
}
