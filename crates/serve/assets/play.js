// The play and analysis page. It holds one game on the server (its id kept per tab in
// sessionStorage, so each tab has its own game and a reload keeps it), draws the state the
// server sends, and turns clicks into the server's move ids. No rule of either game is
// computed here: legal moves, notation, check and results all come in the state.
//
// State arrives two ways: as the answer to a request, and as server-sent events (`state`,
// `done`). An answer is stale when an event came in while it was on its way, so answers are
// applied only when no event arrived meanwhile (the event, being newer, already was).
//
// The test hooks on <body> (data-ready, data-game, data-game-id, data-ply, data-turn,
// data-searching, data-result, data-error) are kept in step with what is shown.

import { api, get, post, del, showError, clearError, initErrorBanner, events, delay } from './api.js';
import { Board } from './board.js';

const $ = (id) => document.getElementById(id);
const body = document.body;
const STORE = 'qizero-game';

const S = {
  id: null,
  state: null,
  view: null, // plies from the start shown on the board, or null for the live position
  selected: null, // square whose moves are marked
  chooser: null, // legal moves sharing `from` and `to`, while the player picks one
  hover: null, // id of the chooser move under the pointer
  info: null, // the newest `info` of a search, and the position it is about
  infoFen: null,
  evalFirst: null, // that score from the first player's view: {cp} or {mate}
  lastBest: null,
  source: null,
  eventsSeen: 0,
  analysing: false,
  autoKey: null, // the position the engine was last asked to answer, so it is asked once
  ai: { running: false, paused: false },
  waiters: [],
};

const board = new Board($('board'));
board.onSquare = onSquare;

// ---- requests --------------------------------------------------------------------------

// A request whose answer is a state of this game: applied unless an event overtook it.
async function request(method, path, payload) {
  const seen = S.eventsSeen;
  const id = S.id;
  const state = await api(method, path, payload);
  if (state && state.id === id) {
    if (S.eventsSeen === seen) applyState(state);
    else refreshSoon();
  }
  return state;
}

let refreshTimer = null;
function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    const seen = S.eventsSeen, id = S.id;
    try {
      const state = await get(`/api/games/${id}`);
      if (S.eventsSeen === seen && state.id === S.id) applyState(state);
    } catch {
      // shown already
    }
  }, 250);
}

function playAs() {
  return Number($('play-as').value);
}

function enginePlays() {
  return $('engine-plays').checked;
}

function positiveInt(id) {
  const text = $(id).value.trim();
  if (!text) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw showError(`${id}: "${text}" is not a positive whole number`);
  return n;
}

// The ENGINE body of POST .../search, from the opponent panel.
function engineBody({ play, infinite }) {
  const net = $('engine').value === 'net';
  const b = { engine: net ? 'net' : 'alphabeta' };
  if (net) {
    b.model = $('model').value;
    if (!b.model) throw showError(`no network model is available for ${S.state?.game} (GET /api/models lists none)`);
  }
  if (infinite) {
    b.infinite = true;
    b.play = false;
    return b;
  }
  if (net) b.sims = positiveInt('sims');
  else b.depth = positiveInt('depth');
  b.movetime_ms = positiveInt('movetime');
  b.play = play;
  return b;
}

async function search(options) {
  const payload = engineBody(options);
  S.lastBest = null;
  return request('POST', `/api/games/${S.id}/search`, payload);
}

async function stopSearch() {
  S.analysing = false;
  return request('POST', `/api/games/${S.id}/stop`);
}

// ---- game lifecycle --------------------------------------------------------------------

async function newGame(payload) {
  const old = S.id;
  stopAi();
  const state = await api('POST', '/api/games', payload);
  await switchTo(state);
  if (old && old !== state.id) del(`/api/games/${old}`).catch(() => {});
  clearError();
}

async function switchTo(state) {
  const gameChanged = !S.state || S.state.game !== state.game;
  S.id = state.id;
  S.state = null;
  S.view = null;
  S.selected = null;
  S.chooser = null;
  S.info = null;
  S.infoFen = null;
  S.evalFirst = null;
  S.autoKey = null;
  S.ai.paused = false;
  sessionStorage.setItem(STORE, JSON.stringify({ id: state.id, game: state.game }));
  $('game').value = state.game;
  if (gameChanged) {
    board.setGame(state.game);
    board.setFlipped(playAs() === 1);
    loadModels(state.game);
  }
  connect();
  resetSearchPanel();
  applyState(state);
}

async function loadModels(game) {
  const select = $('model');
  let models = [];
  try {
    models = (await get(`/api/models?game=${encodeURIComponent(game)}`)) || [];
  } catch {
    // shown already
  }
  select.textContent = '';
  for (const m of models) {
    const option = document.createElement('option');
    option.value = m.id;
    option.textContent = m.label || m.id;
    select.appendChild(option);
  }
  if (!models.length) {
    const option = document.createElement('option');
    option.value = '';
    option.textContent = 'no model for this game';
    select.appendChild(option);
  }
}

function connect() {
  if (S.source) S.source.close();
  const id = S.id;
  S.source = events(`/api/games/${id}/events`, {
    info: (d) => {
      if (S.id === id) onInfo(d);
    },
    done: (d) => {
      if (S.id !== id) return;
      S.eventsSeen++;
      onDone(d);
    },
    state: (d) => {
      if (S.id !== id) return;
      S.eventsSeen++;
      applyState(d.state);
    },
    error: (d) => {
      if (S.id !== id) return;
      showError(`search failed: ${d.error}`);
      for (const w of S.waiters.splice(0)) w.reject(new Error(d.error));
      refreshSoon();
    },
  });
}

function applyState(state) {
  if (!state || state.id !== S.id) return;
  const prev = S.state;
  S.state = state;
  if (!prev || prev.fen !== state.fen || prev.history.length !== state.history.length) {
    S.selected = null;
    S.chooser = null;
    if (S.view !== null && S.view >= state.history.length) S.view = null;
  }
  if (!state.searching) S.analysing = false;
  render();
  maybeEngineMove();
}

// ---- events ----------------------------------------------------------------------------

function onInfo(d) {
  S.info = d;
  S.infoFen = S.state ? S.state.fen : null;
  const turn = S.state ? S.state.turn : 0;
  if (d.score) {
    if (typeof d.score.mate === 'number') S.evalFirst = { mate: turn === 0 ? d.score.mate : -d.score.mate };
    else if (typeof d.score.cp === 'number') S.evalFirst = { cp: turn === 0 ? d.score.cp : -d.score.cp };
  }
  renderSearch();
  renderBoard();
}

function onDone(d) {
  S.lastBest = d.played ? null : d.best;
  if (d.state) applyState(d.state);
  for (const w of S.waiters.splice(0)) w.resolve(d);
  renderSearch();
}

// Resolves on the next `done` event; falls back to polling when events do not arrive.
function waitDone() {
  let settled = false;
  const done = new Promise((resolve, reject) => {
    S.waiters.push({
      resolve: (v) => { settled = true; resolve(v); },
      reject: (e) => { settled = true; reject(e); },
    });
  });
  done.catch(() => {});
  return {
    done,
    async untilIdle() {
      while (!settled) {
        await Promise.race([done.catch(() => {}), delay(1500)]);
        if (settled) break;
        const state = await get(`/api/games/${S.id}`);
        if (!state.searching) {
          applyState(state);
          return;
        }
      }
      await done;
    },
  };
}

// ---- the engine ------------------------------------------------------------------------

function maybeEngineMove() {
  const st = S.state;
  if (!st || st.result || st.searching || S.ai.running || S.ai.paused || !enginePlays()) return;
  if (st.turn === playAs()) return;
  const key = `${S.id}:${st.history.length}:${st.fen}`;
  if (S.autoKey === key) return;
  S.autoKey = key;
  search({ play: true }).catch(() => {});
}

async function aiStep() {
  const waiter = waitDone();
  const state = await search({ play: true });
  if (state) await waiter.untilIdle();
}

function stopAi() {
  S.ai.running = false;
}

async function runAi() {
  if (S.ai.running || !S.state) return;
  S.ai.running = true;
  S.ai.paused = false;
  clearError();
  renderControls();
  try {
    if (S.state.searching) await stopSearch();
    while (S.ai.running && S.state && !S.state.result) {
      await aiStep();
      if (!S.ai.running || !S.state || S.state.result) break;
      await delay(Number($('speed').value) || 0);
    }
  } catch {
    // shown already
  } finally {
    S.ai.running = false;
    renderControls();
  }
}

async function analyse() {
  clearError();
  S.analysing = true;
  try {
    await search({ play: false, infinite: true });
  } catch {
    S.analysing = false;
  }
  renderControls();
}

// ---- moves -----------------------------------------------------------------------------

function historyLength() {
  return S.state ? S.state.history.length : 0;
}

function isLive() {
  return S.view === null || S.view === historyLength();
}

function onSquare(square) {
  const st = S.state;
  if (!st) return;
  if (!isLive()) {
    S.view = null;
    render();
    return;
  }
  if (st.result || S.ai.running || (st.searching && !S.analysing)) return;
  if (S.selected !== null) {
    const moves = st.legal.filter((m) => m.from === S.selected && m.to === square);
    if (moves.length === 1) {
      playMove(moves[0]);
      return;
    }
    if (moves.length > 1) {
      S.chooser = moves;
      S.hover = null;
      render();
      return;
    }
  }
  S.chooser = null;
  if (S.selected === square) S.selected = null;
  else if (st.legal.some((m) => m.from === square)) S.selected = square;
  else S.selected = null;
  render();
}

async function playMove(move) {
  S.selected = null;
  S.chooser = null;
  S.ai.paused = false;
  render();
  const restart = S.analysing && S.state.searching;
  try {
    if (restart) await stopSearch();
    await request('POST', `/api/games/${S.id}/move`, { move: move.id });
    clearError();
    if (restart && !S.state.result) await analyse();
  } catch {
    // shown already
  }
}

async function undo() {
  const st = S.state;
  if (!st) return;
  stopAi();
  let plies = 1;
  if (enginePlays() && !st.result && st.turn === playAs() && st.history.length >= 2) plies = 2;
  S.autoKey = null;
  S.ai.paused = true; // an undo is the player taking the move back: the engine waits for theirs
  try {
    await request('POST', `/api/games/${S.id}/undo`, { plies });
    clearError();
  } catch {
    // shown already
  }
  S.ai.paused = false;
  S.autoKey = `${S.id}:${S.state.history.length}:${S.state.fen}`;
  render();
}

async function reset(fen) {
  stopAi();
  S.autoKey = null;
  S.ai.paused = false;
  const payload = fen ? { fen } : {};
  try {
    await request('POST', `/api/games/${S.id}/reset`, payload);
    clearError();
  } catch {
    // shown already
  }
}

// ---- drawing ---------------------------------------------------------------------------

// The position on the board: live, or an earlier one from the history.
function shownPosition() {
  const st = S.state;
  const n = st.history.length;
  if (isLive()) return { board: st.board, check: st.check, last: n ? st.history[n - 1].move : null, fen: st.fen };
  if (S.view === 0) return { board: st.start_board, check: null, last: null, fen: st.start_fen };
  const h = st.history[S.view - 1];
  return { board: h.board, check: h.check, last: h.move, fen: h.fen };
}

function render() {
  const st = S.state;
  if (!st) return;
  body.dataset.game = st.game;
  body.dataset.gameId = st.id;
  body.dataset.ply = String(st.ply);
  body.dataset.turn = String(st.turn);
  body.dataset.searching = st.searching ? '1' : '0';
  body.dataset.result = st.result ? st.result.score : '';
  $('game-id-label').textContent = `game ${st.id}`;
  renderBoard();
  renderPlayers();
  renderStatus();
  renderMoves();
  renderSearch();
  renderControls();
  renderChooser();
  const shown = shownPosition();
  if (document.activeElement !== $('fen')) $('fen').value = shown.fen || '';
  if (document.activeElement !== $('record')) $('record').value = st.record ? st.record.text : '';
  body.dataset.ready = '1';
}

function renderBoard() {
  const st = S.state;
  if (!st) return;
  const shown = shownPosition();
  const view = { board: shown.board, check: shown.check, last: shown.last, dests: [], paths: [] };
  if (isLive() && S.selected !== null) {
    view.selected = S.selected;
    const mine = st.legal.filter((m) => m.from === S.selected);
    const seen = new Set();
    for (const m of mine) {
      if (seen.has(m.to)) continue;
      seen.add(m.to);
      view.dests.push({ to: m.to, capture: m.captures.length > 0 });
    }
    if (st.game === 'draughts') {
      const shownMoves = S.chooser || mine.filter((m) => m.captures.length > 0);
      for (const m of shownMoves) view.paths.push({ ...m, hot: S.chooser !== null && (S.hover === m.id || S.chooser.length === 1) });
    }
  }
  if (isLive() && S.info && S.infoFen === st.fen && S.info.pv && S.info.pv.length) view.arrow = S.info.pv[0];
  else if (isLive() && S.lastBest && S.infoFen === st.fen) view.arrow = S.lastBest;
  board.render(view);
  renderEvalBar();
}

function renderPlayers() {
  const st = S.state;
  const names = st.side_names || ['first', 'second'];
  const colours = st.game === 'xiangqi' ? ['#c0392b', '#222'] : ['#f5f0e6', '#222'];
  const role = (side) => {
    if (S.ai.running) return 'engine';
    if (!enginePlays()) return '';
    return side === playAs() ? 'you' : 'engine';
  };
  const top = board.flipped ? 0 : 1, bottom = 1 - top;
  for (const [id, side] of [['player-top', top], ['player-bottom', bottom]]) {
    const node = $(id);
    node.textContent = '';
    node.classList.toggle('to-move', !st.result && st.turn === side);
    const dot = document.createElement('span');
    dot.className = 'dot';
    dot.style.background = colours[side];
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = names[side];
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = role(side);
    node.append(dot, name, who);
  }
  const options = $('play-as').options;
  for (let i = 0; i < options.length && i < names.length; i++) options[i].textContent = names[i];
}

function renderStatus() {
  const st = S.state;
  const node = $('status');
  node.classList.toggle('over', !!st.result);
  node.textContent = '';
  const main = document.createElement('span');
  if (st.result) {
    main.textContent = `${st.result.score} · ${st.result.text}`;
  } else {
    let text = `${st.side_names[st.turn]} to move`;
    if (st.check !== null && st.check !== undefined) text += ' · check';
    if (st.searching) text += S.analysing ? ' · analysing' : ' · engine thinking…';
    main.textContent = text;
  }
  main.id = 'result-text';
  node.appendChild(main);
  if (!isLive()) {
    const v = document.createElement('span');
    v.className = 'viewing';
    v.textContent = `viewing ply ${S.view} of ${st.history.length} (read only; → or End to return)`;
    node.appendChild(v);
  }
}

function startTurn(st) {
  return (st.turn + st.history.length) % 2;
}

function renderMoves() {
  const st = S.state;
  const list = $('moves');
  list.textContent = '';
  const current = isLive() ? st.history.length : S.view;
  const start = document.createElement('div');
  start.className = `start${current === 0 ? ' current' : ''}`;
  start.textContent = 'start position';
  start.addEventListener('click', () => goTo(0));
  list.appendChild(start);
  const first = startTurn(st);
  let number = 1;
  const cell = (i) => {
    const node = document.createElement('div');
    if (i === null) {
      node.className = 'mv empty';
      node.textContent = '…';
      return node;
    }
    const move = st.history[i].move;
    node.className = `mv${current === i + 1 ? ' current' : ''}`;
    node.dataset.plyIndex = String(i);
    node.textContent = move.text;
    if (move.cn) node.title = `${move.cn} (${move.id})`;
    else node.title = move.id;
    node.addEventListener('click', () => goTo(i + 1));
    return node;
  };
  let i = 0;
  const n = st.history.length;
  while (i < n) {
    const num = document.createElement('div');
    num.className = 'num';
    num.textContent = String(number++);
    list.appendChild(num);
    if (i === 0 && first === 1) {
      list.appendChild(cell(null));
      list.appendChild(cell(0));
      i = 1;
      continue;
    }
    list.appendChild(cell(i));
    const second = document.createElement('div');
    if (i + 1 < n) list.appendChild(cell(i + 1));
    else {
      second.className = 'mv empty';
      list.appendChild(second);
    }
    i += 2;
  }
  if (st.result) {
    const r = document.createElement('div');
    r.className = 'result';
    r.textContent = `${st.result.score} · ${st.result.text}`;
    list.appendChild(r);
  }
  const cur = list.querySelector('.current');
  if (cur) {
    const top = cur.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 30) list.scrollTop = top - list.clientHeight / 2;
  }
}

function goTo(ply) {
  const n = historyLength();
  if (ply === null || ply >= n) S.view = null;
  else S.view = Math.max(0, ply);
  S.selected = null;
  S.chooser = null;
  render();
}

function formatScore(score) {
  if (!score) return '–';
  if (typeof score.mate === 'number') return `mate ${score.mate}`;
  const pawns = score.cp / 100;
  return `${pawns > 0 ? '+' : ''}${pawns.toFixed(2)}`;
}

function formatCount(n) {
  if (typeof n !== 'number') return '–';
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function resetSearchPanel() {
  const panel = $('search');
  panel.dataset.depth = '0';
  panel.dataset.nodes = '0';
  for (const id of ['s-depth', 's-nodes', 's-nps', 's-time']) $(id).textContent = '–';
  $('score').textContent = '–';
  $('pv').textContent = '';
  $('pv-cn').textContent = '';
}

function renderSearch() {
  const st = S.state;
  const panel = $('search');
  panel.classList.toggle('live', !!(st && st.searching));
  const label = $('engine-state');
  if (st && st.searching) label.textContent = S.analysing ? 'analysing' : 'engine thinking';
  else if (S.lastBest) label.textContent = `best: ${S.lastBest.text}`;
  else label.textContent = 'engine idle';
  const d = S.info;
  if (!d) return;
  panel.dataset.depth = String(d.depth ?? 0);
  panel.dataset.nodes = String(d.nodes ?? 0);
  $('s-depth').textContent = d.seldepth ? `${d.depth}/${d.seldepth}` : String(d.depth ?? '–');
  $('s-nodes').textContent = formatCount(d.nodes);
  $('s-nps').textContent = formatCount(d.nps);
  $('s-time').textContent = typeof d.time_ms === 'number' ? `${(d.time_ms / 1000).toFixed(1)}s` : '–';
  const score = $('score');
  score.textContent = formatScore(S.evalFirst);
  score.title = `from ${st ? st.side_names[0] : 'the first player'}'s side`;
  const pv = $('pv');
  pv.textContent = '';
  const pvMoves = d.pv || [];
  if (st) {
    const base = st.history.length + startTurn(st);
    pvMoves.forEach((m, k) => {
      const ply = base + k;
      if (ply % 2 === 0 || k === 0) {
        const n = document.createElement('span');
        n.className = 'n';
        n.textContent = `${Math.floor(ply / 2) + 1}${ply % 2 === 0 ? '.' : '…'}`;
        pv.appendChild(n);
      }
      pv.appendChild(document.createTextNode(`${m.text} `));
    });
  }
  $('pv-cn').textContent = pvMoves.some((m) => m.cn) ? pvMoves.map((m) => m.cn || m.text).join(' ') : '';
}

function renderEvalBar() {
  const bar = $('evalbar');
  const fill = bar.querySelector('.fill');
  bar.classList.toggle('first-red', S.state && S.state.game === 'xiangqi');
  let share = 50;
  const e = S.evalFirst;
  if (e && typeof e.mate === 'number') share = e.mate > 0 ? 100 : 0;
  else if (e && typeof e.cp === 'number') share = 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * e.cp)) - 1);
  fill.style.height = `${share}%`;
  fill.style.top = board.flipped ? '0' : 'auto';
  fill.style.bottom = board.flipped ? 'auto' : '0';
}

function renderControls() {
  const st = S.state;
  const over = !st || !!st.result;
  const searching = !!(st && st.searching);
  $('ai-move').disabled = over || searching || S.ai.running;
  $('analyse').disabled = over || searching || S.ai.running;
  $('stop').disabled = !searching && !S.ai.running;
  $('ai-vs-ai').disabled = over || S.ai.running;
  $('ai-vs-ai').classList.toggle('active', S.ai.running);
  $('pause').disabled = !S.ai.running;
  $('step').disabled = over || S.ai.running || searching;
  $('undo').disabled = !st || st.history.length === 0;
  $('nav-first').disabled = !st || (S.view === 0);
  $('nav-prev').disabled = !st || S.view === 0 || st.history.length === 0;
  $('nav-next').disabled = !st || isLive();
  $('nav-last').disabled = !st || isLive();
  for (const node of document.querySelectorAll('[data-engine]')) node.hidden = node.dataset.engine !== $('engine').value;
}

function renderChooser() {
  const node = $('chooser');
  if (!S.chooser) {
    node.hidden = true;
    node.textContent = '';
    return;
  }
  node.hidden = false;
  node.textContent = '';
  const title = document.createElement('div');
  title.className = 'title';
  title.textContent = `${S.chooser.length} captures share these squares; choose one:`;
  node.appendChild(title);
  for (const m of S.chooser) {
    const b = document.createElement('button');
    b.textContent = m.text;
    b.dataset.move = m.id;
    b.title = `${m.id}: takes ${m.captures.map((c) => c + 1).join(', ')}`;
    b.addEventListener('mouseenter', () => { S.hover = m.id; renderBoard(); });
    b.addEventListener('mouseleave', () => { S.hover = null; renderBoard(); });
    b.addEventListener('click', () => playMove(m));
    node.appendChild(b);
  }
  const cancel = document.createElement('button');
  cancel.textContent = 'cancel';
  cancel.addEventListener('click', () => { S.chooser = null; render(); });
  node.appendChild(cancel);
}

// ---- controls --------------------------------------------------------------------------

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

function wire() {
  const on = (id, fn) => $(id).addEventListener('click', fn);
  on('new-game', () => newGame({ game: $('game').value }).catch(() => {}));
  $('game').addEventListener('change', () => newGame({ game: $('game').value }).catch(() => {}));
  on('reset', () => reset());
  on('undo', () => undo());
  on('flip', () => { board.setFlipped(!board.flipped); render(); });
  $('play-as').addEventListener('change', () => {
    board.setFlipped(playAs() === 1);
    S.autoKey = null;
    S.ai.paused = false;
    render();
    maybeEngineMove();
  });
  $('engine-plays').addEventListener('change', () => { S.autoKey = null; S.ai.paused = false; render(); maybeEngineMove(); });
  $('engine').addEventListener('change', renderControls);
  on('ai-move', async () => {
    clearError();
    S.ai.paused = false;
    try {
      await search({ play: true });
    } catch {
      // shown already
    }
  });
  on('analyse', () => analyse());
  on('stop', async () => {
    stopAi();
    S.ai.paused = true;
    try {
      if (S.state && S.state.searching) await stopSearch();
    } catch {
      // shown already
    }
    renderControls();
  });
  on('ai-vs-ai', () => runAi());
  on('pause', () => { stopAi(); S.ai.paused = true; renderControls(); });
  on('step', async () => {
    if (S.ai.running) return;
    S.ai.paused = true;
    try {
      await aiStep();
    } catch {
      // shown already
    }
  });
  on('nav-first', () => goTo(0));
  on('nav-prev', () => goTo((isLive() ? historyLength() : S.view) - 1));
  on('nav-next', () => goTo((isLive() ? historyLength() : S.view) + 1));
  on('nav-last', () => goTo(null));
  on('copy-fen', () => copy($('fen').value));
  on('load-fen', () => {
    const fen = $('fen').value.trim();
    if (!fen) {
      showError('the FEN box is empty');
      return;
    }
    $('fen').blur();
    reset(fen);
  });
  on('copy-record', () => copy($('record').value));
  on('load-record', () => {
    const record = $('record').value.trim();
    if (!record) {
      showError('the record box is empty: paste a PGN (xiangqi) or PDN (draughts) game');
      return;
    }
    $('record').blur();
    newGame({ game: $('game').value, record }).catch(() => {});
  });
  document.addEventListener('keydown', (e) => {
    const tag = e.target && e.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || e.ctrlKey || e.metaKey || e.altKey) return;
    const n = historyLength();
    const cur = isLive() ? n : S.view;
    if (e.key === 'ArrowLeft') goTo(cur - 1);
    else if (e.key === 'ArrowRight') goTo(cur + 1);
    else if (e.key === 'Home' || e.key === 'ArrowUp') goTo(0);
    else if (e.key === 'End' || e.key === 'ArrowDown') goTo(null);
    else if (e.key === 'f') { board.setFlipped(!board.flipped); render(); return; }
    else if (e.key === 'Escape') { S.selected = null; S.chooser = null; render(); return; }
    else return;
    e.preventDefault();
  });
}

async function start() {
  initErrorBanner();
  wire();
  const params = new URLSearchParams(location.search);
  const wanted = params.get('game');
  if (wanted === 'xiangqi' || wanted === 'draughts') $('game').value = wanted;
  const game = $('game').value;
  let stored = null;
  try {
    stored = JSON.parse(sessionStorage.getItem(STORE) || 'null');
  } catch {
    stored = null;
  }
  try {
    if (stored && stored.id && (!wanted || stored.game === wanted)) {
      try {
        const state = await api('GET', `/api/games/${stored.id}`);
        await switchTo(state);
        clearError();
        return;
      } catch {
        clearError(); // the server forgot it (restarted): start afresh
      }
    }
    await switchTo(await api('POST', '/api/games', { game }));
  } catch {
    body.dataset.ready = '1';
  }
}

start();
