// The deposit address as a QR code: the qrcode package encodes it, the page draws its modules as
// one SVG path (crisp at any size, nothing loaded, nothing the CSP refuses).
import { create } from 'qrcode';

/** A 4-module quiet zone around the symbol, as scanners expect. */
const QUIET = 4;

export function QrCode({ text, label }: { text: string; label: string }) {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  let d = '';
  for (let row = 0; row < size; row++)
    for (let col = 0; col < size; col++) if (modules.get(row, col)) d += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
  const box = size + QUIET * 2;
  return (
    <svg class="qr" viewBox={`0 0 ${box} ${box}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={box} height={box} fill="#ffffff" />
      <path d={d} fill="#000000" />
    </svg>
  );
}
