/**
 * What a browser gets for a path or an id under /pay/ that is not there: a short page in the
 * customer's language (the API keeps its JSON error body), and a path with a trailing slash sent
 * (308) to the path without it. The texts are a small catalog of the page's languages.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../errors.js';
import { languageOf, type Language } from './languages.js';

interface NotFoundText {
  title: string;
  body: string;
}

const NOT_FOUND: Record<Language, NotFoundText> = {
  en: {
    title: 'Page not found',
    body: 'This payment link is not valid. Check the link, or ask the seller for a new one.',
  },
  es: {
    title: 'Página no encontrada',
    body: 'Este enlace de pago no es válido. Revise el enlace o pida uno nuevo al vendedor.',
  },
  'pt-BR': {
    title: 'Página não encontrada',
    body: 'Este link de pagamento não é válido. Confira o link ou peça um novo ao vendedor.',
  },
  ru: {
    title: 'Страница не найдена',
    body: 'Эта ссылка на оплату недействительна. Проверьте ссылку или попросите у продавца новую.',
  },
  tr: {
    title: 'Sayfa bulunamadı',
    body: 'Bu ödeme bağlantısı geçerli değil. Bağlantıyı kontrol edin veya satıcıdan yenisini isteyin.',
  },
  'zh-CN': { title: '页面不存在', body: '此付款链接无效。请检查链接，或向卖家索取新的链接。' },
  vi: {
    title: 'Không tìm thấy trang',
    body: 'Liên kết thanh toán này không hợp lệ. Hãy kiểm tra lại liên kết hoặc xin người bán một liên kết mới.',
  },
  id: {
    title: 'Halaman tidak ditemukan',
    body: 'Tautan pembayaran ini tidak berlaku. Periksa tautannya, atau minta tautan baru kepada penjual.',
  },
};

/** Whether the client prefers HTML to JSON (a browser's navigation, not the page's own fetch). */
export function prefersHtml(accept: string | undefined): boolean {
  const q = (type: string) => {
    for (const item of (accept ?? '').split(',')) {
      const [media = '', ...params] = item.split(';');
      if (media.trim().toLowerCase() !== type) continue;
      const v = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((x) => x !== undefined);
      return v === undefined ? 1 : Number(v);
    }
    return 0;
  };
  const html = q('text/html');
  return html > 0 && html >= q('application/json');
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function notFoundHtml(language: Language): string {
  const t = NOT_FOUND[language];
  return `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><title>${escape(t.title)}</title></head>
<body><main><h1>${escape(t.title)}</h1><p>${escape(t.body)}</p></main></body>
</html>
`;
}

export function sendNotFoundPage(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .header('vary', 'Accept, Accept-Language, Cookie')
    .send(notFoundHtml(languageOf(req.headers)));
}

/** The surface's error page of the payment page's listener. */
export function payErrorPage(e: AppError, req: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const url = req.raw.url ?? '';
  const [pathname = '', query] = url.split('?', 2);
  if (!pathname.startsWith('/pay/')) return undefined;
  if (e.code === 'route_not_found' && pathname.length > '/pay/'.length && pathname.endsWith('/')) {
    const target = pathname.replace(/\/+$/, '') + (query === undefined ? '' : `?${query}`);
    return reply.code(308).header('location', target).send();
  }
  const missing =
    e.code === 'route_not_found' ||
    e.code === 'invoice_not_found' ||
    e.code === 'refund_not_found' ||
    (e.code === 'validation_failed' && req.method === 'GET');
  if (missing && req.method === 'GET' && prefersHtml(req.headers.accept)) return sendNotFoundPage(req, reply);
  return undefined;
}
