// The 30-day chart of amounts received per asset: plain SVG drawn here (nothing fetched, no
// library), with the same numbers as a table for screen readers. Bar heights come from bigint
// arithmetic on the decimal text: the amounts never pass through a float.
import { h } from '../../../shared/dom';
import { money, unitOf } from '../../../shared/format';

export interface DayAmount {
  /** `YYYY-MM-DD`, a UTC day. */
  day: string;
  /** The decimal amount received that day. */
  amount: string;
}

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 120;
const BAR_GAP = 2;

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** Each amount as an integer count of the smallest unit any of them uses. */
function scaled(amounts: string[]): bigint[] {
  const scale = Math.max(0, ...amounts.map((a) => a.split('.')[1]?.length ?? 0));
  return amounts.map((a) => {
    const [whole = '0', fraction = ''] = a.split('.');
    return BigInt(whole + fraction.padEnd(scale, '0'));
  });
}

/** One asset's days as bars (tallest = the chart's height), the axis labelled by its first and last day. */
export function receivedChart(asset: string, days: DayAmount[]): HTMLElement {
  const values = scaled(days.map((d) => d.amount));
  const top = values.reduce((a, b) => (b > a ? b : a), 0n);
  const slot = Math.floor(WIDTH / Math.max(1, days.length));
  const drawing = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT + 18}`,
    class: 'chart',
    'aria-hidden': 'true',
    focusable: 'false',
  });
  values.forEach((v, i) => {
    const height = top > 0n ? Number((v * BigInt(HEIGHT)) / top) : 0;
    const bar = svg('rect', {
      x: i * slot + BAR_GAP / 2,
      y: HEIGHT - Math.max(height, v > 0n ? 1 : 0),
      width: slot - BAR_GAP,
      height: Math.max(height, v > 0n ? 1 : 0),
      class: 'bar',
    });
    drawing.append(bar);
  });
  drawing.append(svg('line', { x1: 0, y1: HEIGHT + 0.5, x2: WIDTH, y2: HEIGHT + 0.5, class: 'axis' }));
  const label = (x: number, anchor: string, text: string) => {
    const t = svg('text', { x, y: HEIGHT + 15, 'text-anchor': anchor, class: 'tick' });
    t.textContent = text;
    drawing.append(t);
  };
  if (days[0]) label(0, 'start', days[0].day.slice(5));
  const last = days[days.length - 1];
  if (last) label(WIDTH, 'end', last.day.slice(5));
  const highest = top > 0n ? days[values.indexOf(top)] : undefined;
  return h(
    'figure',
    { class: 'chart-box' },
    h(
      'figcaption',
      {},
      `${unitOf(asset)} received per day, last ${days.length} days`,
      highest ? h('span', { class: 'hint' }, ` (highest ${money(highest.amount, asset)} on ${highest.day})`) : null,
    ),
    drawing,
    h(
      'table',
      { class: 'sr-only' },
      h('caption', {}, `${unitOf(asset)} received per day (UTC)`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day'), h('th', { scope: 'col' }, 'Received'))),
      h(
        'tbody',
        {},
        ...days.map((d) => h('tr', {}, h('td', {}, d.day), h('td', {}, `${money(d.amount, asset)} ${unitOf(asset)}`))),
      ),
    ),
  );
}
