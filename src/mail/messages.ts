/**
 * What the mail says: plain text and simple HTML built from one list of lines, customer mail in the
 * language the customer used on the payment page (its catalog below, one per page language), owner
 * mail in English like the cabinet. Values are escaped in the HTML; nothing here reads the database.
 */
import type { Language } from '../pay/languages.js';

interface CustomerText {
  receiptSubject: string;
  receiptIntro: string;
  receiptKeep: string;
  refundSubject: string;
  refundIntro: string;
  refundAction: string;
  refundValid: string;
  order: string;
  amount: string;
  invoice: string;
  date: string;
}

/** Short and plain: the customer reads it once, maybe in a second language. `{name}` is a value. */
export const CUSTOMER_TEXT: Record<Language, CustomerText> = {
  en: {
    receiptSubject: 'Your receipt from {merchant}',
    receiptIntro: '{merchant} received your payment. Thank you.',
    receiptKeep: 'Keep this message as your receipt.',
    refundSubject: 'Your refund from {merchant}',
    refundIntro: '{merchant} is refunding {amount} {asset} to you.',
    refundAction: 'Open this link and enter your TRON address to receive the money:',
    refundValid: 'The link works until {date}. Do not share it with anyone.',
    order: 'Order',
    amount: 'Amount',
    invoice: 'Invoice',
    date: 'Date',
  },
  es: {
    receiptSubject: 'Su recibo de {merchant}',
    receiptIntro: '{merchant} recibió su pago. Gracias.',
    receiptKeep: 'Guarde este mensaje como recibo.',
    refundSubject: 'Su reembolso de {merchant}',
    refundIntro: '{merchant} le reembolsa {amount} {asset}.',
    refundAction: 'Abra este enlace e indique su dirección TRON para recibir el dinero:',
    refundValid: 'El enlace funciona hasta el {date}. No lo comparta con nadie.',
    order: 'Pedido',
    amount: 'Importe',
    invoice: 'Factura',
    date: 'Fecha',
  },
  'pt-BR': {
    receiptSubject: 'Seu recibo de {merchant}',
    receiptIntro: '{merchant} recebeu seu pagamento. Obrigado.',
    receiptKeep: 'Guarde esta mensagem como recibo.',
    refundSubject: 'Seu reembolso de {merchant}',
    refundIntro: '{merchant} está devolvendo {amount} {asset} para você.',
    refundAction: 'Abra este link e informe seu endereço TRON para receber o dinheiro:',
    refundValid: 'O link funciona até {date}. Não o compartilhe com ninguém.',
    order: 'Pedido',
    amount: 'Valor',
    invoice: 'Fatura',
    date: 'Data',
  },
  ru: {
    receiptSubject: 'Ваш чек от {merchant}',
    receiptIntro: '{merchant} получил ваш платёж. Спасибо.',
    receiptKeep: 'Сохраните это письмо как чек.',
    refundSubject: 'Возврат денег от {merchant}',
    refundIntro: '{merchant} возвращает вам {amount} {asset}.',
    refundAction: 'Откройте ссылку и укажите свой адрес TRON, чтобы получить деньги:',
    refundValid: 'Ссылка действует до {date}. Никому её не передавайте.',
    order: 'Заказ',
    amount: 'Сумма',
    invoice: 'Счёт',
    date: 'Дата',
  },
  tr: {
    receiptSubject: '{merchant} ödeme makbuzunuz',
    receiptIntro: '{merchant} ödemenizi aldı. Teşekkürler.',
    receiptKeep: 'Bu iletiyi makbuzunuz olarak saklayın.',
    refundSubject: '{merchant} iadeniz',
    refundIntro: '{merchant} size {amount} {asset} iade ediyor.',
    refundAction: 'Parayı almak için bu bağlantıyı açın ve TRON adresinizi girin:',
    refundValid: 'Bağlantı {date} tarihine kadar geçerlidir. Kimseyle paylaşmayın.',
    order: 'Sipariş',
    amount: 'Tutar',
    invoice: 'Fatura',
    date: 'Tarih',
  },
  'zh-CN': {
    receiptSubject: '来自 {merchant} 的收据',
    receiptIntro: '{merchant} 已收到您的付款。谢谢。',
    receiptKeep: '请保留此邮件作为收据。',
    refundSubject: '来自 {merchant} 的退款',
    refundIntro: '{merchant} 将向您退款 {amount} {asset}。',
    refundAction: '请打开此链接并填写您的 TRON 地址以收款：',
    refundValid: '此链接在 {date} 之前有效。请勿与任何人分享。',
    order: '订单',
    amount: '金额',
    invoice: '账单',
    date: '日期',
  },
  vi: {
    receiptSubject: 'Biên nhận từ {merchant}',
    receiptIntro: '{merchant} đã nhận được thanh toán của bạn. Cảm ơn bạn.',
    receiptKeep: 'Hãy giữ thư này làm biên nhận.',
    refundSubject: 'Khoản hoàn tiền từ {merchant}',
    refundIntro: '{merchant} hoàn lại cho bạn {amount} {asset}.',
    refundAction: 'Mở liên kết này và nhập địa chỉ TRON của bạn để nhận tiền:',
    refundValid: 'Liên kết có hiệu lực đến {date}. Đừng chia sẻ nó với bất kỳ ai.',
    order: 'Đơn hàng',
    amount: 'Số tiền',
    invoice: 'Hóa đơn',
    date: 'Ngày',
  },
  id: {
    receiptSubject: 'Tanda terima dari {merchant}',
    receiptIntro: '{merchant} telah menerima pembayaran Anda. Terima kasih.',
    receiptKeep: 'Simpan email ini sebagai tanda terima.',
    refundSubject: 'Pengembalian dana dari {merchant}',
    refundIntro: '{merchant} mengembalikan {amount} {asset} kepada Anda.',
    refundAction: 'Buka tautan ini dan masukkan alamat TRON Anda untuk menerima dana:',
    refundValid: 'Tautan berlaku hingga {date}. Jangan bagikan kepada siapa pun.',
    order: 'Pesanan',
    amount: 'Jumlah',
    invoice: 'Tagihan',
    date: 'Tanggal',
  },
};

/** A mail ready for the outbox. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** A line of a mail: a paragraph, a labelled value, or a link shown as itself. */
type Line = { p: string } | { label: string; value: string } | { link: string };

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(subject: string, lines: Line[]): RenderedMail {
  const text = lines.map((l) => ('p' in l ? l.p : 'link' in l ? l.link : `${l.label}: ${l.value}`)).join('\n\n');
  const html = lines
    .map((l) =>
      'p' in l
        ? `<p>${escapeHtml(l.p)}</p>`
        : 'link' in l
          ? `<p><a href="${escapeHtml(l.link)}">${escapeHtml(l.link)}</a></p>`
          : `<p>${escapeHtml(l.label)}: <strong>${escapeHtml(l.value)}</strong></p>`,
    )
    .join('\n');
  return {
    subject,
    text: `${text}\n`,
    html: `<!doctype html>\n<html><body style="font-family:sans-serif">\n${html}\n</body></html>\n`,
  };
}

/** A UTC date as the customer's language writes it, the time zone named. */
function dateIn(language: Language, iso: string): string {
  return `${new Intl.DateTimeFormat(language, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`;
}

export interface ReceiptFacts {
  merchant: string;
  orderId: string | null;
  invoiceId: string;
  amount: string;
  asset: string;
  paidAt: string;
}

export function receiptMail(language: Language, f: ReceiptFacts): RenderedMail {
  const t = CUSTOMER_TEXT[language];
  const values = { merchant: f.merchant };
  return render(fill(t.receiptSubject, values), [
    { p: fill(t.receiptIntro, values) },
    ...(f.orderId ? [{ label: t.order, value: f.orderId }] : []),
    { label: t.amount, value: `${f.amount} ${f.asset}` },
    { label: t.invoice, value: f.invoiceId },
    { label: t.date, value: dateIn(language, f.paidAt) },
    { p: t.receiptKeep },
  ]);
}

export interface RefundFacts {
  merchant: string;
  orderId: string | null;
  amount: string;
  asset: string;
  claimUrl: string;
  expiresAt: string;
}

export function refundClaimMail(language: Language, f: RefundFacts): RenderedMail {
  const t = CUSTOMER_TEXT[language];
  const values = { merchant: f.merchant, amount: f.amount, asset: f.asset, date: dateIn(language, f.expiresAt) };
  return render(fill(t.refundSubject, values), [
    { p: fill(t.refundIntro, values) },
    ...(f.orderId ? [{ label: t.order, value: f.orderId }] : []),
    { p: t.refundAction },
    { link: f.claimUrl },
    { p: fill(t.refundValid, values) },
  ]);
}

const EXCEPTION_WORDS: Record<string, string> = {
  underpaid: 'An invoice was underpaid',
  overpaid: 'An invoice was overpaid',
  paid_late: 'An invoice was paid after it expired',
  foreign_asset: 'A payment arrived in another token',
};

export interface ExceptionFacts {
  merchant: string;
  kind: string;
  invoiceId: string | null;
  orderId: string | null;
  amount: string;
  asset: string;
  cabinetUrl: string;
}

/** To an owner: a payment needs a look (the cabinet's exceptions list it). */
export function exceptionMail(f: ExceptionFacts): RenderedMail {
  const what = EXCEPTION_WORDS[f.kind] ?? 'A payment needs attention';
  return render(`${f.merchant}: ${what.toLowerCase()}`, [
    { p: `${what} at ${f.merchant}.` },
    ...(f.orderId ? [{ label: 'Order', value: f.orderId }] : []),
    ...(f.invoiceId ? [{ label: 'Invoice', value: f.invoiceId }] : []),
    { label: f.kind === 'underpaid' ? 'Missing' : 'Amount', value: `${f.amount} ${f.asset}` },
    { p: 'Open the cabinet to resolve it or to refund the customer:' },
    { link: f.cabinetUrl },
  ]);
}

export interface PayoutReviewFacts {
  merchant: string;
  payoutId: string;
  amount: string;
  asset: string;
  toAddress: string;
  reasons: string[];
  cabinetUrl: string;
}

/** To an owner: a payout of theirs waits for the operator's review. */
export function payoutInReviewMail(f: PayoutReviewFacts): RenderedMail {
  return render(`${f.merchant}: a payout waits for review`, [
    { p: `A payout of ${f.merchant} waits for the operator's review before it is sent.` },
    { label: 'Payout', value: f.payoutId },
    { label: 'Amount', value: `${f.amount} ${f.asset}` },
    { label: 'To', value: f.toAddress },
    ...(f.reasons.length > 0 ? [{ label: 'Why', value: f.reasons.join(', ') }] : []),
    { link: f.cabinetUrl },
  ]);
}

/** What `paygate mail test` sends. */
export function testMail(from: string): RenderedMail {
  return render('paygate test mail', [{ p: `This is a test mail from paygate, sent as ${from}. Mail works.` }]);
}
