// The run watcher (`/watch?run=N`): the Elo ladder, losses, throughput, gate decisions, the
// newest self-play game and the arena's records of one run directory. Each part is fetched on
// its own and fetched again when the run's event stream says its file changed; a slow poll
// covers a stream that has dropped.
//
// Test hooks: <body data-ready="1" data-players="N"> once the ladder is shown, one
// `tr[data-player=name]` per rated player.

import { get, showError, clearError, initErrorBanner, events } from './api.js';
import { Board } from './board.js';
import { lineChart, legend } from './charts.js';

const $ = (id) => document.getElementById(id);
const POLL_MS = 10000;
const COLOURS = ['#3692e7', '#e8803a', '#629924', '#c94ec9', '#e8b04a', '#5ac8c8'];

let run = null; // {id, name, game}
let source = null;

// ---- replays ---------------------------------------------------------------------------

// A small board stepping through a REPLAY's frames; `auto` plays on its own and starts over.
class Replay {
  constructor(prefix, { auto }) {
    this.prefix = prefix;
    this.board = new Board($(`${prefix}-board`), { small: true });
    this.auto = auto;
    this.playing = auto;
    this.data = null;
    this.frame = 0;
    this.timer = null;
    const panel = $(`${prefix}-board`).closest('.replay');
    panel.querySelector('.controls').addEventListener('click', (e) => {
      const act = e.target.closest('button')?.dataset.act;
      if (!act || !this.data) return;
      const n = this.data.frames.length;
      if (act === 'first') this.show(0);
      else if (act === 'prev') this.show(this.frame - 1);
      else if (act === 'next') this.show(this.frame + 1);
      else if (act === 'last') this.show(n);
      else if (act === 'play') this.setPlaying(!this.playing);
      if (act !== 'play') this.setPlaying(false);
    });
    this.playButton = panel.querySelector('[data-act="play"]');
  }

  load(data, keepFrame = false) {
    const same = this.data && this.data.start_fen === data.start_fen && this.data.frames.length <= data.frames.length;
    this.data = data;
    if (this.board.game !== data.game) this.board.setGame(data.game);
    const players = data.players ? `${data.players[0]} (${data.side_names[0]}) – ${data.players[1]} (${data.side_names[1]})` : data.side_names.join(' – ');
    $(`${this.prefix}-players`).textContent = players;
    $(`${this.prefix}-result`).textContent = data.result ? `${data.result.score} · ${data.result.text}` : 'no result (unfinished or capped)';
    this.show(keepFrame && same ? this.frame : 0);
    this.setPlaying(this.auto || this.playing);
  }

  show(frame) {
    const d = this.data;
    const n = d.frames.length;
    this.frame = Math.max(0, Math.min(n, frame));
    const f = this.frame === 0 ? null : d.frames[this.frame - 1];
    this.board.render({ board: f ? f.board : d.start_board, last: f ? f.move : null, check: f ? f.check : null });
    const text = f ? ` ${f.move.text}` : '';
    $(`${this.prefix}-frame`).textContent = `ply ${this.frame}/${n}${text}`;
  }

  setPlaying(on) {
    this.playing = on;
    this.playButton.textContent = on ? '❚❚' : '▶';
    clearTimeout(this.timer);
    if (on && this.data) this.tick();
  }

  tick() {
    this.timer = setTimeout(() => {
      if (!this.playing || !this.data) return;
      const n = this.data.frames.length;
      if (this.frame >= n) this.show(0);
      else this.show(this.frame + 1);
      this.tick();
    }, this.frame >= this.data.frames.length ? 2500 : 600);
  }
}

const selfplay = new Replay('sp', { auto: true });
const arenaReplay = new Replay('ar', { auto: false });

// ---- the parts -------------------------------------------------------------------------

const fmt = (v, digits = 0) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '–');

async function loadRatings() {
  const r = await get(`/api/runs/${run.id}/ratings`);
  const players = [...(r.players || [])].sort((a, b) => b.elo - a.elo);
  const tbody = $('ladder').querySelector('tbody');
  tbody.textContent = '';
  players.forEach((p, i) => {
    const tr = document.createElement('tr');
    tr.dataset.player = p.name;
    if (p.kind !== 'checkpoint') tr.className = 'baseline';
    const cells = [
      [String(i + 1), ''],
      [p.name, 'name'],
      [fmt(p.elo), 'num'],
      [`${fmt(p.lo)} – ${fmt(p.hi)}`, 'num'],
      [String(p.games ?? '–'), 'num'],
      [typeof p.score === 'number' ? `${(p.score * 100).toFixed(1)}%` : '–', 'num'],
    ];
    appendCells(tr, cells);
    tbody.appendChild(tr);
  });
  if (!players.length) {
    emptyRow(tbody, 6, 'no ratings yet (the first arena has not finished)');
  }
  $('anchor').textContent = r.anchor ? `anchored at ${r.anchor} = 0` : '';

  const checkpoints = players.filter((p) => p.kind === 'checkpoint' && typeof p.step === 'number');
  const baselines = players.filter((p) => p.kind !== 'checkpoint');
  const refs = baselines.map((p, i) => ({ name: p.name, y: p.elo, colour: COLOURS[(i + 1) % COLOURS.length] }));
  lineChart($('elo-chart'), {
    series: [{
      name: 'checkpoints', colour: COLOURS[0], dots: true,
      points: checkpoints.map((p) => ({ x: p.step, y: p.elo, lo: p.lo, hi: p.hi })),
    }],
    refs, xTitle: 'step', yTitle: 'Elo', empty: 'no rated checkpoint yet',
  });
  legend($('elo-legend'), [{ name: 'checkpoint (95% interval)', colour: COLOURS[0] }, ...refs.map((r) => ({ name: r.name, colour: r.colour }))]);
  document.body.dataset.players = String(players.length);
  document.body.dataset.ready = '1';
}

async function loadMetrics() {
  const m = await get(`/api/runs/${run.id}/metrics`);
  const train = m.train || [];
  lineChart($('loss-chart'), {
    series: [
      { name: 'policy loss', colour: COLOURS[0], points: train.filter((t) => typeof t.policy_loss === 'number').map((t) => ({ x: t.step, y: t.policy_loss })) },
      { name: 'value loss', colour: COLOURS[1], points: train.filter((t) => typeof t.value_loss === 'number').map((t) => ({ x: t.step, y: t.value_loss })) },
    ],
    xTitle: 'step', yTitle: 'loss', empty: 'no training steps yet',
  });
  legend($('loss-legend'), [{ name: 'policy loss', colour: COLOURS[0] }, { name: 'value loss', colour: COLOURS[1] }]);

  const selfplayRows = m.selfplay || [];
  const times = train.map((t) => t.time_ms).concat(selfplayRows.map((s) => s.time_ms)).filter((t) => typeof t === 'number');
  const t0 = times.length ? Math.min(...times) : 0;
  const minutes = (t) => (t - t0) / 60000;
  lineChart($('speed-chart'), {
    series: [
      { name: 'training samples/s', colour: COLOURS[2], points: train.filter((t) => typeof t.samples_per_s === 'number').map((t) => ({ x: minutes(t.time_ms), y: t.samples_per_s })) },
      { name: 'self-play positions/s', colour: COLOURS[3], points: selfplayRows.filter((s) => typeof s.positions_per_s === 'number').map((s) => ({ x: minutes(s.time_ms), y: s.positions_per_s })) },
    ],
    xTitle: 'minutes', yTitle: 'per second', empty: 'no throughput yet',
  });
  legend($('speed-legend'), [{ name: 'training samples/s', colour: COLOURS[2] }, { name: 'self-play positions/s', colour: COLOURS[3] }]);

  const tbody = $('gates').querySelector('tbody');
  tbody.textContent = '';
  const gates = [...(m.gates || [])].reverse();
  for (const g of gates) {
    const tr = document.createElement('tr');
    const verdict = g.verdict === null || g.verdict === undefined ? '–' : String(g.verdict);
    const cells = [[String(g.step ?? '–'), 'num'], [g.candidate ?? '–', 'name'], [g.best ?? '–', 'name'],
      [verdict, `verdict-${verdict.toLowerCase()}`], [String(g.wins ?? '–'), 'num'], [String(g.draws ?? '–'), 'num'], [String(g.losses ?? '–'), 'num']];
    appendCells(tr, cells);
    tbody.appendChild(tr);
  }
  if (!gates.length) {
    emptyRow(tbody, 7, 'no gate yet');
  }
}

async function loadSelfplay() {
  let replay;
  try {
    replay = await get(`/api/runs/${run.id}/selfplay/latest`);
  } catch (e) {
    if (e.status === 404) {
      clearError();
      $('sp-players').textContent = 'no self-play game yet';
      return;
    }
    throw e;
  }
  selfplay.load(replay, true);
}

let currentGame = null; // [match, file] shown on the arena board

async function loadArena() {
  const matches = await get(`/api/runs/${run.id}/arena`);
  const list = $('arena');
  list.textContent = '';
  if (!matches.length) {
    list.textContent = 'no arena match yet';
    list.className = 'arena-list muted';
    return;
  }
  list.className = 'arena-list';
  for (const m of [...matches].reverse()) {
    const div = document.createElement('div');
    div.className = 'match';
    const title = document.createElement('div');
    title.className = 'title';
    title.textContent = `${m.match} (${m.games.length} games)`;
    const games = document.createElement('div');
    games.className = 'games';
    m.games.forEach((file, i) => {
      const b = document.createElement('button');
      b.textContent = String(i + 1);
      b.title = file;
      b.dataset.match = m.match;
      b.dataset.file = file;
      if (currentGame && currentGame[0] === m.match && currentGame[1] === file) b.classList.add('current');
      b.addEventListener('click', () => openArenaGame(m.match, file));
      games.appendChild(b);
    });
    title.addEventListener('click', () => { if (m.games.length) openArenaGame(m.match, m.games[0]); });
    div.append(title, games);
    list.appendChild(div);
  }
}

async function openArenaGame(match, file) {
  try {
    const replay = await get(`/api/runs/${run.id}/arena/${encodeURIComponent(match)}/${encodeURIComponent(file)}`);
    currentGame = [match, file];
    for (const b of $('arena').querySelectorAll('button')) b.classList.toggle('current', b.dataset.match === match && b.dataset.file === file);
    arenaReplay.load(replay);
    arenaReplay.setPlaying(true);
    $('ar-players').title = `${match}/${file}`;
  } catch {
    // shown already
  }
}

const loaders = { ratings: loadRatings, metrics: loadMetrics, selfplay: loadSelfplay, arena: loadArena };

async function refresh(what) {
  try {
    await loaders[what]();
    $('updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch {
    // shown already
  }
}

let pending = {};
function refreshSoon(what) {
  if (!loaders[what] || pending[what]) return;
  pending[what] = setTimeout(() => {
    pending[what] = null;
    refresh(what);
  }, 300);
}

async function openRun(id) {
  const runs = await get('/api/runs');
  const select = $('run');
  select.textContent = '';
  for (const r of runs) {
    const option = document.createElement('option');
    option.value = String(r.id);
    option.textContent = `${r.name} (${r.game})`;
    select.appendChild(option);
  }
  if (!runs.length) {
    $('run-name').textContent = 'no run is watched: start the server with --run DIR';
    document.body.dataset.ready = '1';
    return;
  }
  run = runs.find((r) => String(r.id) === String(id)) || runs[0];
  select.value = String(run.id);
  $('run-name').textContent = run.name;
  document.title = `qizero · ${run.name}`;
  if (source) source.close();
  source = events(`/api/runs/${run.id}/events`, { changed: (d) => refreshSoon(d.what) });
  source.onopen = () => { $('live').textContent = 'live'; $('live').classList.add('on'); };
  source.onerror = () => { $('live').textContent = 'reconnecting'; $('live').classList.remove('on'); };
  await Promise.all(Object.keys(loaders).map(refresh));
}

async function start() {
  initErrorBanner();
  const params = new URLSearchParams(location.search);
  $('run').addEventListener('change', () => {
    const url = new URL(location.href);
    url.searchParams.set('run', $('run').value);
    history.replaceState(null, '', url);
    openRun($('run').value).catch(() => {});
  });
  try {
    await openRun(params.get('run') ?? '0');
  } catch {
    document.body.dataset.ready = '1';
  }
  setInterval(() => { if (run) for (const what of Object.keys(loaders)) refresh(what); }, POLL_MS);
}

start();

// A table row's cells: [text, class] pairs.
function appendCells(tr, cells) {
  for (const [text, cls] of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
  }
}

// One muted row across `cols` columns, for an empty table.
function emptyRow(tbody, cols, text) {
  const tr = document.createElement('tr');
  const td = document.createElement('td');
  td.colSpan = cols;
  td.className = 'muted';
  td.textContent = text;
  tr.appendChild(td);
  tbody.appendChild(tr);
}
