// Small SVG line charts for the watch page: numeric axes with round ticks, one polyline per
// series, optional error bars (95% intervals) and dashed reference lines.

import { svg } from './board.js';

const W = 560, H = 240, L = 52, R = 16, T = 14, B = 30;

// Round tick values covering [lo, hi], about `count` of them.
function ticks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

// A tick's text, with as many decimals as the tick spacing `step` needs.
function label(v, step = 0) {
  const a = Math.abs(v);
  if (a >= 1e6) return `${(v / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(0)}k`;
  if (step > 0) return v.toFixed(Math.max(0, Math.min(6, -Math.floor(Math.log10(step)))));
  if (a >= 100 || Number.isInteger(v)) return String(Math.round(v));
  return v.toFixed(a >= 10 ? 1 : 2);
}

// Draws into `container`: `series` [{name, colour, points: [{x, y, lo?, hi?}]}],
// `refs` [{name, colour, y}] horizontal lines, `xTitle`, `yTitle`, `empty` (text when no data).
export function lineChart(container, { series = [], refs = [], xTitle = '', yTitle = '', empty = 'no data yet' }) {
  container.textContent = '';
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart' }, container);
  const pts = series.flatMap((s) => s.points);
  if (!pts.length && !refs.length) {
    svg('text', { class: 'empty', x: W / 2, y: H / 2 }, root, empty);
    return;
  }
  const xs = pts.map((p) => p.x);
  const ys = pts.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]).concat(refs.map((r) => r.y));
  let x0 = Math.min(...xs, Infinity), x1 = Math.max(...xs, -Infinity);
  if (!Number.isFinite(x0)) { x0 = 0; x1 = 1; }
  if (x1 === x0) { x0 -= 1; x1 += 1; }
  let y0 = Math.min(...ys), y1 = Math.max(...ys);
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const padY = (y1 - y0) * 0.08;
  y0 -= padY;
  y1 += padY;
  const sx = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);

  const grid = svg('g', { class: 'grid' }, root);
  const axis = svg('g', { class: 'axis' }, root);
  const yTicks = ticks(y0, y1), xTicks = ticks(x0, x1, 6);
  const spacing = (t) => (t.length > 1 ? t[1] - t[0] : 0);
  for (const v of yTicks) {
    svg('line', { x1: L, x2: W - R, y1: sy(v), y2: sy(v) }, grid);
    svg('text', { x: L - 6, y: sy(v) + 4, 'text-anchor': 'end' }, axis, label(v, spacing(yTicks)));
  }
  for (const v of xTicks) {
    svg('line', { x1: sx(v), x2: sx(v), y1: H - B, y2: H - B + 4 }, axis);
    svg('text', { x: sx(v), y: H - B + 16, 'text-anchor': 'middle' }, axis, label(v, spacing(xTicks)));
  }
  svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B }, axis);
  if (xTitle) svg('text', { x: W - R, y: H - 2, 'text-anchor': 'end' }, axis, xTitle);
  if (yTitle) svg('text', { x: 4, y: 10 }, axis, yTitle);

  // Reference labels alternate between the right and left ends, so two close lines stay legible.
  refs.forEach((r, i) => {
    svg('line', { class: 'ref', x1: L, x2: W - R, y1: sy(r.y), y2: sy(r.y), stroke: r.colour }, root);
    const right = i % 2 === 0;
    svg('text', {
      class: 'ref-label', x: right ? W - R - 2 : L + 4, y: sy(r.y) - 4, 'text-anchor': right ? 'end' : 'start', fill: r.colour,
    }, root, r.name);
  });
  for (const s of series) {
    const points = [...s.points].sort((a, b) => a.x - b.x);
    if (points.some((p) => p.lo !== undefined)) {
      for (const p of points) {
        svg('line', { class: 'whisker', x1: sx(p.x), x2: sx(p.x), y1: sy(p.lo), y2: sy(p.hi), stroke: s.colour }, root);
        for (const y of [p.lo, p.hi]) svg('line', { class: 'whisker', x1: sx(p.x) - 4, x2: sx(p.x) + 4, y1: sy(y), y2: sy(y), stroke: s.colour }, root);
      }
    }
    if (points.length > 1) {
      svg('polyline', { class: 'series', stroke: s.colour, points: points.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' ') }, root);
    }
    if (s.dots || points.length < 40) {
      for (const p of points) {
        const dot = svg('circle', { class: 'dot', cx: sx(p.x), cy: sy(p.y), r: 3.5, fill: s.colour }, root);
        svg('title', {}, dot, `${s.name}: ${label(p.y)} at ${label(p.x)}`);
      }
    }
  }
}

// A legend under a chart.
export function legend(container, items) {
  container.textContent = '';
  for (const it of items) {
    const span = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = it.colour;
    span.append(swatch, document.createTextNode(it.name));
    container.appendChild(span);
  }
}
