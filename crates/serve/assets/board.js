// SVG boards for both games. This module knows where a square is drawn and what a board
// string's characters look like; it knows no rule of either game: which squares a piece may
// reach, and everything else about moves, comes from the server (API.md).
//
// Layers, bottom to top: the board itself, the click targets (one `[data-square]` per square,
// the only layer that takes the pointer), then marks, pieces and overlays, which let clicks
// through. Clicking a square therefore always reaches its target, whatever is drawn on it.

const NS = 'http://www.w3.org/2000/svg';
let instances = 0;

export function svg(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) node.setAttribute(k, v);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

const XIANGQI_CHARS = {
  K: '帥', A: '仕', B: '相', N: '傌', R: '俥', C: '炮', P: '兵',
  k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒',
};

// Where each game's squares are drawn: `point(i, flipped)` is the centre of square i in the
// SVG's coordinates; `count` squares; `width` x `height` the viewBox.
const GEOMETRY = {
  xiangqi: (() => {
    const cell = 56, pad = 44;
    return {
      cell, pad, count: 90,
      width: 2 * pad + 8 * cell,
      height: 2 * pad + 9 * cell,
      point(i, flipped) {
        const file = i % 9, rank = Math.floor(i / 9);
        const col = flipped ? 8 - file : file, row = flipped ? rank : 9 - rank;
        return { x: pad + col * cell, y: pad + row * cell };
      },
    };
  })(),
  draughts: (() => {
    const cell = 56, pad = 10;
    return {
      cell, pad, count: 50,
      width: 2 * pad + 10 * cell,
      height: 2 * pad + 10 * cell,
      point(i, flipped) {
        const row = Math.floor(i / 5);
        const col = 2 * (i % 5) + (row % 2 === 0 ? 1 : 0);
        const r = flipped ? 9 - row : row, c = flipped ? 9 - col : col;
        return { x: pad + c * cell + cell / 2, y: pad + r * cell + cell / 2 };
      },
    };
  })(),
};

export class Board {
  // `container`: the element the SVG goes in. `options.small`: a replay board (no click
  // targets' pointer cursor, lighter coordinates).
  constructor(container, options = {}) {
    this.container = container;
    this.small = !!options.small;
    this.flipped = false;
    this.game = null;
    this.onSquare = null;
    this.uid = ++instances;
  }

  setGame(game) {
    if (!GEOMETRY[game]) throw new Error(`unknown game ${game}`);
    this.game = game;
    this.geo = GEOMETRY[game];
    this.build();
  }

  setFlipped(flipped) {
    if (this.flipped === !!flipped) return;
    this.flipped = !!flipped;
    if (this.game) this.build();
  }

  point(i) {
    return this.geo.point(i, this.flipped);
  }

  // The static part: board, coordinates, click targets, and empty layers for the rest.
  build() {
    const g = this.geo;
    this.container.textContent = '';
    const root = svg('svg', {
      viewBox: `0 0 ${g.width} ${g.height}`,
      class: `board board-${this.game}${this.small ? ' small' : ''}`,
      role: 'img',
    }, this.container);
    const defs = svg('defs', {}, root);
    for (const [name, colour] of [['arrow', 'var(--arrow)'], ['path', 'var(--path)']]) {
      const marker = svg('marker', {
        id: `${name}-head-${this.uid}`, viewBox: '0 0 10 10', refX: 5, refY: 5,
        markerWidth: 3, markerHeight: 3, orient: 'auto-start-reverse',
      }, defs);
      svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', style: `fill:${colour}` }, marker);
    }
    const glow = svg('radialGradient', { id: `check-${this.uid}` }, defs);
    svg('stop', { offset: '0%', 'stop-color': '#ff0000', 'stop-opacity': 1 }, glow);
    svg('stop', { offset: '35%', 'stop-color': '#e70000', 'stop-opacity': 0.9 }, glow);
    svg('stop', { offset: '100%', 'stop-color': '#a50000', 'stop-opacity': 0 }, glow);

    const background = svg('g', { class: 'layer-board' }, root);
    if (this.game === 'xiangqi') this.drawXiangqi(background);
    else this.drawDraughts(background);

    const hits = svg('g', { class: 'layer-hits' }, root);
    for (let i = 0; i < g.count; i++) {
      const p = this.point(i);
      svg('rect', {
        class: 'hit', 'data-square': i,
        x: p.x - g.cell / 2, y: p.y - g.cell / 2, width: g.cell, height: g.cell,
      }, hits);
    }
    hits.addEventListener('click', (e) => {
      const square = e.target.closest('[data-square]');
      if (square && this.onSquare) this.onSquare(Number(square.dataset.square));
    });
    this.layers = {};
    for (const name of ['marks', 'pieces', 'overlay']) {
      this.layers[name] = svg('g', { class: `layer-${name}` }, root);
    }
    this.root = root;
    if (this.last) this.render(this.last);
  }

  drawXiangqi(parent) {
    const { cell, pad, width, height } = this.geo;
    svg('rect', { class: 'wood', x: 0, y: 0, width, height, rx: 6 }, parent);
    const lines = svg('g', { class: 'lines' }, parent);
    const left = pad, right = pad + 8 * cell, top = pad, bottom = pad + 9 * cell;
    svg('rect', { class: 'frame', x: left - 5, y: top - 5, width: right - left + 10, height: bottom - top + 10 }, lines);
    for (let r = 0; r < 10; r++) {
      svg('line', { x1: left, y1: top + r * cell, x2: right, y2: top + r * cell }, lines);
    }
    for (let c = 0; c < 9; c++) {
      const x = left + c * cell;
      if (c === 0 || c === 8) {
        svg('line', { x1: x, y1: top, x2: x, y2: bottom }, lines);
      } else {
        svg('line', { x1: x, y1: top, x2: x, y2: top + 4 * cell }, lines);
        svg('line', { x1: x, y1: top + 5 * cell, x2: x, y2: bottom }, lines);
      }
    }
    // The palaces' diagonals: d0-f2, f0-d2, d7-f9, f7-d9.
    for (const [a, b] of [[3, 23], [5, 21], [66, 86], [68, 84]]) {
      const p = this.point(a), q = this.point(b);
      svg('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y }, lines);
    }
    // The cannons' and soldiers' starting points, marked by corner ticks as on a printed board.
    const ticks = [19, 25, 64, 70, 27, 29, 31, 33, 35, 54, 56, 58, 60, 62];
    for (const i of ticks) this.tick(lines, i);
    const riverY = top + 4.5 * cell;
    const river = svg('g', { class: 'river' }, parent);
    svg('text', { x: left + 2 * cell, y: riverY }, river, '楚 河');
    svg('text', { x: left + 6 * cell, y: riverY }, river, '漢 界');
    const coords = svg('g', { class: 'coords' }, parent);
    for (let c = 0; c < 9; c++) {
      const file = this.flipped ? 8 - c : c;
      svg('text', { x: left + c * cell, y: height - 10 }, coords, 'abcdefghi'[file]);
    }
    for (let r = 0; r < 10; r++) {
      const rank = this.flipped ? r : 9 - r;
      svg('text', { x: 14, y: top + r * cell }, coords, String(rank));
    }
  }

  tick(parent, i) {
    const { cell } = this.geo;
    const p = this.point(i), file = i % 9;
    const d = cell * 0.08, l = cell * 0.16;
    const sides = [];
    const onLeftEdge = this.flipped ? file === 8 : file === 0;
    const onRightEdge = this.flipped ? file === 0 : file === 8;
    if (!onLeftEdge) sides.push(-1);
    if (!onRightEdge) sides.push(1);
    for (const sx of sides) {
      for (const sy of [-1, 1]) {
        const x = p.x + sx * d, y = p.y + sy * d;
        svg('polyline', { points: `${x + sx * l},${y} ${x},${y} ${x},${y + sy * l}`, class: 'tick' }, parent);
      }
    }
  }

  drawDraughts(parent) {
    const { cell, pad, width, height } = this.geo;
    svg('rect', { class: 'frame-draughts', x: 0, y: 0, width, height, rx: 4 }, parent);
    svg('rect', { class: 'light', x: pad, y: pad, width: 10 * cell, height: 10 * cell }, parent);
    const numbers = svg('g', { class: 'numbers' }, null);
    for (let i = 0; i < 50; i++) {
      const p = this.point(i);
      svg('rect', { class: 'dark', x: p.x - cell / 2, y: p.y - cell / 2, width: cell, height: cell }, parent);
      svg('text', { x: p.x - cell / 2 + 2, y: p.y - cell / 2 + 10 }, numbers, String(i + 1));
    }
    parent.appendChild(numbers);
  }

  // Draws a position. `view`: { board, last (MOVE), check (square), selected (square),
  // dests ([{to, capture}]), paths ([{path, captures, hot}]), arrow (MOVE) }; every field but
  // `board` may be missing.
  render(view) {
    this.last = view;
    if (!this.root) return;
    const { marks, pieces, overlay } = this.layers;
    marks.textContent = '';
    pieces.textContent = '';
    overlay.textContent = '';
    const g = this.geo;
    const mark = (i, cls) => {
      const p = this.point(i);
      if (this.game === 'draughts') {
        svg('rect', { class: cls, x: p.x - g.cell / 2, y: p.y - g.cell / 2, width: g.cell, height: g.cell }, marks);
      } else {
        svg('circle', { class: cls, cx: p.x, cy: p.y, r: g.cell * 0.47 }, marks);
      }
    };
    if (view.last) {
      mark(view.last.from, 'last from');
      mark(view.last.to, 'last to');
      if (this.game === 'xiangqi') {
        // A xiangqi piece hides the mark under it, so the arrival also gets a ring above it.
        const p = this.point(view.last.to);
        svg('circle', { class: 'last-ring', cx: p.x, cy: p.y, r: g.cell * 0.47 }, overlay);
      }
    }
    if (view.selected !== null && view.selected !== undefined) mark(view.selected, 'selected');
    if (view.check !== null && view.check !== undefined) {
      const p = this.point(view.check);
      svg('circle', { class: 'check', cx: p.x, cy: p.y, r: g.cell * 0.6, fill: `url(#check-${this.uid})` }, marks);
    }

    const board = view.board || '';
    for (let i = 0; i < board.length && i < g.count; i++) {
      const ch = board[i];
      if (ch === '.') continue;
      this.piece(pieces, i, ch);
    }

    for (const p of view.paths || []) this.path(overlay, p);
    for (const d of view.dests || []) {
      const p = this.point(d.to);
      if (d.capture) {
        svg('circle', { class: 'dest capture', 'data-dest': d.to, cx: p.x, cy: p.y, r: g.cell * 0.42 }, overlay);
      } else {
        svg('circle', { class: 'dest', 'data-dest': d.to, cx: p.x, cy: p.y, r: g.cell * 0.15 }, overlay);
      }
    }
    if (view.arrow) this.arrow(overlay, view.arrow);
  }

  piece(parent, i, ch) {
    const p = this.point(i), c = this.geo.cell;
    const group = svg('g', {
      class: 'piece', 'data-piece': ch, 'data-square': i, transform: `translate(${p.x} ${p.y})`,
    }, parent);
    if (this.game === 'xiangqi') {
      const red = ch === ch.toUpperCase();
      group.classList.add(red ? 'red' : 'black');
      svg('circle', { class: 'disc', r: c * 0.45 }, group);
      svg('circle', { class: 'ring', r: c * 0.38 }, group);
      svg('text', { class: 'glyph', y: 1 }, group, XIANGQI_CHARS[ch] || ch);
    } else {
      const white = ch === 'w' || ch === 'W';
      group.classList.add(white ? 'white' : 'black');
      svg('circle', { class: 'disc', r: c * 0.39, cy: 2 }, group);
      svg('circle', { class: 'disc', r: c * 0.39 }, group);
      svg('circle', { class: 'ring', r: c * 0.26 }, group);
      if (ch === 'W' || ch === 'B') {
        group.classList.add('king');
        const s = c * 0.2;
        svg('path', {
          class: 'crown',
          d: `M ${-s} ${s * 0.55} L ${-s} ${-s * 0.45} L ${-s * 0.5} ${0} L 0 ${-s * 0.75} L ${s * 0.5} 0 L ${s} ${-s * 0.45} L ${s} ${s * 0.55} Z`,
        }, group);
      }
    }
  }

  // A move's path: a line through its landing squares and a cross on each piece taken.
  path(parent, move) {
    const points = (move.path || [move.from, move.to]).map((i) => this.point(i));
    const cls = `path${move.hot ? ' hot' : ''}`;
    svg('polyline', {
      class: cls, points: points.map((q) => `${q.x},${q.y}`).join(' '),
      'marker-end': `url(#path-head-${this.uid})`,
    }, parent);
    for (const t of move.captures || []) {
      const q = this.point(t), s = this.geo.cell * 0.16;
      svg('path', { class: `taken${move.hot ? ' hot' : ''}`, d: `M ${q.x - s} ${q.y - s} L ${q.x + s} ${q.y + s} M ${q.x + s} ${q.y - s} L ${q.x - s} ${q.y + s}` }, parent);
    }
  }

  arrow(parent, move) {
    const squares = move.path && move.path.length > 1 ? move.path : [move.from, move.to];
    const points = squares.map((i) => this.point(i));
    // Stop short of the last centre so the head sits on the square rather than past it.
    const a = points[points.length - 2], b = points[points.length - 1];
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const cut = this.geo.cell * 0.2;
    points[points.length - 1] = { x: b.x - ((b.x - a.x) / len) * cut, y: b.y - ((b.y - a.y) / len) * cut };
    svg('polyline', {
      class: 'arrow', points: points.map((q) => `${q.x},${q.y}`).join(' '),
      'marker-end': `url(#arrow-head-${this.uid})`,
    }, parent);
  }
}
