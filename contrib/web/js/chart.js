// Small inline-SVG charts drawn from integer cents.  Each chart is an image
// with a text alternative; the pages also show the figures as a table.
import { s, h } from './ui.js';
import { formatCents } from './money.js';

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b',
  '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#637939'];
export const colour = (i) => PALETTE[i % PALETTE.length];

// bars: [{label, parts: [{key, cents}]}]; stacked vertical bars.
export function stackedBars(title, bars, keys) {
  const W = 640, H = 260, L = 64, B = 40, T = 10;
  const max = Math.max(1, ...bars.map((b) => b.parts.reduce((a, p) => a + Math.max(0, p.cents), 0)));
  const bw = (W - L - 10) / Math.max(1, bars.length);
  const y = (c) => T + (H - T - B) * (1 - c / max);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title, class: 'chart' },
    s('title', {}, title));
  for (let i = 0; i <= 4; i++) {
    const c = Math.round((max * i) / 4);
    svg.append(s('line', { x1: L, x2: W - 10, y1: y(c), y2: y(c), class: 'grid' }),
      s('text', { x: L - 6, y: y(c) + 4, 'text-anchor': 'end', class: 'axis' }, formatCents(c).replace(/\.\d\d$/, '')));
  }
  bars.forEach((b, i) => {
    let acc = 0;
    const x = L + i * bw + bw * 0.15;
    for (const p of b.parts) {
      if (p.cents <= 0) continue;
      const y0 = y(acc), y1 = y(acc + p.cents);
      svg.append(s('rect', { x, y: y1, width: bw * 0.7, height: Math.max(0.5, y0 - y1),
        fill: colour(keys.indexOf(p.key)), class: 'bar', 'data-key': p.key },
        s('title', {}, `${b.label} ${p.key}: ${formatCents(p.cents)}`)));
      acc += p.cents;
    }
    svg.append(s('text', { x: x + bw * 0.35, y: H - B + 16, 'text-anchor': 'middle', class: 'axis' }, b.label));
  });
  const legend = h('ul', { class: 'legend' }, keys.map((k, i) =>
    h('li', {}, h('span', { class: 'swatch', style: `background:${colour(i)}` }), k.replace(/_/g, ' '))));
  return h('figure', { class: 'chart-box' }, svg, legend);
}

// Horizontal bars: [{label, cents}].
export function hbars(title, rows) {
  const W = 640, rowH = 26, L = 170;
  const H = Math.max(1, rows.length) * rowH + 10;
  const max = Math.max(1, ...rows.map((r) => r.cents));
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title, class: 'chart' }, s('title', {}, title));
  rows.forEach((r, i) => {
    const w = ((W - L - 90) * Math.max(0, r.cents)) / max;
    const y = 5 + i * rowH;
    svg.append(s('text', { x: L - 6, y: y + 16, 'text-anchor': 'end', class: 'axis' }, String(r.label).slice(0, 24)),
      s('rect', { x: L, y: y + 3, width: Math.max(0.5, w), height: rowH - 8, fill: colour(i), class: 'bar' },
        s('title', {}, `${r.label}: ${formatCents(r.cents)}`)),
      s('text', { x: L + w + 6, y: y + 16, class: 'axis' }, formatCents(r.cents)));
  });
  return h('figure', { class: 'chart-box' }, svg);
}

// A line over points [{label, cents}].
export function line(title, points) {
  const W = 640, H = 220, L = 64, B = 36, T = 10;
  const max = Math.max(1, ...points.map((p) => p.cents));
  const step = (W - L - 20) / Math.max(1, points.length - 1);
  const x = (i) => L + i * step;
  const y = (c) => T + (H - T - B) * (1 - c / max);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title, class: 'chart' }, s('title', {}, title));
  for (let i = 0; i <= 4; i++) {
    const c = Math.round((max * i) / 4);
    svg.append(s('line', { x1: L, x2: W - 10, y1: y(c), y2: y(c), class: 'grid' }),
      s('text', { x: L - 6, y: y(c) + 4, 'text-anchor': 'end', class: 'axis' }, formatCents(c).replace(/\.\d\d$/, '')));
  }
  svg.append(s('polyline', { points: points.map((p, i) => `${x(i)},${y(p.cents)}`).join(' '), class: 'line', fill: 'none' }));
  points.forEach((p, i) => {
    svg.append(s('circle', { cx: x(i), cy: y(p.cents), r: 3.5, class: 'dot' }, s('title', {}, `${p.label}: ${formatCents(p.cents)}`)));
    if (points.length <= 12 || i % 2 === 0) svg.append(s('text', { x: x(i), y: H - B + 16, 'text-anchor': 'middle', class: 'axis' }, p.label));
  });
  return h('figure', { class: 'chart-box' }, svg);
}
