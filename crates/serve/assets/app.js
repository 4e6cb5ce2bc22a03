// The web lab page: pick a variant and who plays, click to move, let the
// bot answer or watch the bot play itself; evaluation bar, move list and
// the game's end from the server's answers.
import * as api from './api.js';
import { drawBoard, click, targets } from './board.js';

const $ = (id) => document.getElementById(id);

const lab = {
  info: null, // GET /api/variants
  game: null, // the latest game state
  kind: 'move', // which kind of move clicks make (a power's, where there are powers)
  sel: [], // clicked squares of the move being entered
  choices: [], // moves waiting for a promotion choice
  last: [], // squares of the last move
  busy: false, // a request is in flight
  watching: false, // bot against bot is running
  wdl: null, // the bot's latest WDL, first player's view
  error: '',
};
window.lab = lab; // for the browser tests and the curious

function variantInfo() {
  return lab.info.variants.find((v) => v.id === lab.game.variant);
}

/// Who moves next: 'bot' or 'human', from the players menu.
function mover() {
  const mode = $('players').value;
  if (mode === 'watch') return 'bot';
  if (mode === 'human') return 'human';
  return lab.game.side_to_move === mode ? 'human' : 'bot';
}

function setState(game, last) {
  lab.game = game;
  lab.sel = [];
  lab.choices = [];
  if (last) lab.last = last;
  if (!game.legal.some((m) => m.kind === lab.kind)) lab.kind = 'move';
  render();
}

lab.render = () => render(); // redraw (the browser tests draw long move lists)

function render() {
  const game = lab.game;
  const info = variantInfo();
  drawBoard($('board'), game, {
    sel: lab.sel,
    targets: targets(game.legal, lab.kind, lab.sel),
    last: lab.last,
    onClick: onSquare,
    onSize: (ranks) => {
      $('eval').style.height = `calc(var(--sq) * ${ranks})`;
    },
  });
  renderPowers(info);
  renderMoves(info);
  renderEval(info);
  renderStatus(info);
  $('promotion').innerHTML = '';
  for (const m of lab.choices) {
    const b = document.createElement('button');
    b.textContent = m.promotion.toUpperCase();
    b.dataset.move = m.move;
    b.addEventListener('click', () => humanMove(m.move, m.path));
    $('promotion').appendChild(b);
  }
  const pass = game.legal.find((m) => m.kind === 'pass');
  $('pass').hidden = !pass || mover() !== 'human';
  // Stop belongs to watch mode (bot against bot) only.
  $('stop').hidden = $('players').value !== 'watch';
  $('position-text').textContent = game.position;
  document.body.dataset.state = game.outcome ? 'over' : lab.busy ? 'thinking' : 'idle';
}

/// The powers panel, from the board's `powers` (kind, name, uses per
/// side); hidden for a variant without powers.
function renderPowers(info) {
  const panel = $('powers');
  const powers = lab.game.board.powers;
  panel.hidden = powers.length === 0;
  if (powers.length === 0) return;
  const legalKinds = new Set(lab.game.legal.map((m) => m.kind));
  const toMove = lab.game.side_to_move === 'first' ? 0 : 1;
  const buttons = $('power-buttons');
  buttons.innerHTML = '';
  for (const power of [{ kind: 'move', name: 'Move' }, ...powers]) {
    const b = document.createElement('button');
    b.dataset.kind = power.kind;
    const left = power.uses ? ` (${power.uses[toMove]})` : '';
    b.textContent = power.name + left;
    b.disabled = !legalKinds.has(power.kind) || mover() !== 'human';
    if (power.kind === lab.kind) b.classList.add('active');
    b.addEventListener('click', () => {
      lab.kind = power.kind;
      lab.sel = [];
      render();
    });
    buttons.appendChild(b);
  }
  const cell = (tag, text) => {
    const el = document.createElement(tag);
    el.textContent = text;
    return el;
  };
  const table = $('power-table');
  table.innerHTML = '';
  const head = document.createElement('tr');
  head.append(cell('th', ''), ...powers.map((p) => cell('th', p.name)));
  table.appendChild(head);
  for (const side of [0, 1]) {
    const row = document.createElement('tr');
    row.append(cell('th', info.sides[side]), ...powers.map((p) => cell('td', p.uses[side])));
    table.appendChild(row);
  }
}

// The move list: SAN with move numbers ("1. e4", "f5") where the game
// has it (chess variants), else the move tokens numbered by the list. The
// PGN box shows the game as PGN where there is one.
function renderMoves(info) {
  const list = $('moves');
  list.innerHTML = '';
  const game = lab.game;
  const san = game.san && game.san.length === game.moves.length ? game.san : null;
  list.style.listStyleType = san ? 'none' : '';
  // The number and side of the first move, from the start position's FEN.
  const fen = (game.start === 'startpos' ? '' : game.start).split(' ');
  let number = parseInt(fen[5], 10) || 1;
  let second = fen[1] === 'b';
  game.moves.forEach((m, i) => {
    const li = document.createElement('li');
    li.title = m;
    if (san) {
      li.textContent = second ? (i === 0 ? `${number}... ${san[i]}` : san[i]) : `${number}. ${san[i]}`;
      if (second) number += 1;
      second = !second;
    } else {
      li.textContent = m;
      li.title = `${i + 1}`;
    }
    list.appendChild(li);
  });
  list.scrollTop = list.scrollHeight;
  $('pgn-box').hidden = game.pgn == null;
  if (game.pgn != null && !lab.pgnEdited) $('pgn').value = game.pgn;
}

/// Start a game from the PGN in the box (its [Variant] tag picks the variant).
async function loadPgn() {
  const pgn = $('pgn').value;
  const tag = /\[Variant "([^"]*)"\]/.exec(pgn);
  const named = tag && lab.info.variants.find((v) => v.id === tag[1].toLowerCase());
  if (named) $('variant').value = named.id;
  lab.error = '';
  try {
    const game = await api.newGame($('variant').value, undefined, pgn);
    lab.pgnEdited = false;
    lab.busy = false;
    lab.last = [];
    setState(game, []);
  } catch (e) {
    lab.error = e.message;
    $('error').textContent = e.message;
    return;
  }
  describeVariant();
  maybeBot();
}

function renderEval(info) {
  const bar = $('eval-fill');
  const label = $('eval-label');
  const outcome = lab.game.outcome;
  if (outcome) {
    // The game is decided: the bar shows the result, not a guess.
    const first = outcome.winner === 'first' ? 1 : outcome.winner === 'second' ? 0 : 0.5;
    bar.style.height = `${first * 100}%`;
    label.textContent = outcome.winner
      ? `Result: ${info.sides[outcome.winner === 'first' ? 0 : 1]} won`
      : 'Result: draw';
    return;
  }
  if (!lab.wdl) {
    bar.style.height = '50%';
    label.textContent = 'no evaluation yet';
    return;
  }
  const [w, d, l] = lab.wdl;
  const score = w + d / 2;
  bar.style.height = `${(score * 100).toFixed(1)}%`;
  const pct = (x) => `${Math.round(x * 100)}%`;
  label.textContent = `${info.sides[0]}: W ${pct(w)} D ${pct(d)} L ${pct(l)}`;
}

function renderStatus(info) {
  const game = lab.game;
  const side = info.sides[game.side_to_move === 'first' ? 0 : 1];
  let text;
  if (game.outcome) {
    const winner = game.outcome.winner;
    const who = winner ? `${info.sides[winner === 'first' ? 0 : 1]} win` : 'Draw';
    text = `Game over: ${who} (${game.outcome.reason})`;
  } else if (lab.busy) {
    text = `${side} to move: the bot is thinking…`;
  } else {
    text = `${side} to move${mover() === 'human' ? ' (you)' : ''}`;
  }
  $('status').textContent = text;
  $('error').textContent = lab.error;
  // A failed bot move (e.g. Nodes over the service's cap) can be asked again.
  $('retry').hidden = !(lab.error && !lab.busy && !game.outcome && mover() === 'bot');
}

function onSquare(square) {
  if (lab.busy || lab.game.outcome || mover() !== 'human') return;
  const result = click(lab.game.legal, lab.kind, lab.sel, square);
  lab.sel = result.sel;
  lab.choices = [];
  if (result.done.length === 1) {
    humanMove(result.done[0].move, result.done[0].path);
    return;
  }
  if (result.done.length > 1) lab.choices = result.done; // promotion
  render();
}

async function humanMove(move, path) {
  lab.error = '';
  try {
    lab.busy = true;
    const game = await api.playMove(lab.game.id, move);
    lab.busy = false;
    setState(game, path);
  } catch (e) {
    lab.busy = false;
    lab.error = e.message;
    render();
  }
  maybeBot();
}

/// Ask the bot for a move when it is its turn (and keep going when watching).
async function maybeBot() {
  if (lab.busy || lab.game.outcome || mover() !== 'bot') return;
  if ($('players').value === 'watch' && !lab.watching) return;
  lab.busy = true;
  lab.error = '';
  render();
  const id = lab.game.id;
  try {
    const answer = await api.botMove(id, botRequest());
    if (lab.game.id !== id) return; // a new game was started meanwhile
    lab.busy = false;
    lab.wdl = answer.bot.wdl_first;
    // The bot's move was legal in the state before it: its click path is there.
    const path = lab.game.legal.find((m) => m.move === answer.bot.move)?.path || [];
    $('pv').textContent = answer.bot.pv.join(' ');
    setState(answer, path);
  } catch (e) {
    lab.busy = false;
    lab.watching = false;
    lab.error = e.message;
    render();
    return;
  }
  if ($('players').value === 'watch') setTimeout(maybeBot, 150);
  else maybeBot();
}

function botRequest() {
  const request = { level: $('level').value };
  const nodes = parseInt($('nodes').value, 10);
  if (nodes > 0) request.nodes = nodes;
  return request;
}

async function startGame() {
  lab.error = '';
  lab.pgnEdited = false;
  lab.watching = $('players').value === 'watch';
  lab.wdl = null;
  lab.last = [];
  lab.kind = 'move';
  $('pv').textContent = '';
  try {
    const game = await api.newGame($('variant').value, $('position').value.trim() || undefined);
    lab.busy = false;
    setState(game, []);
  } catch (e) {
    lab.error = e.message;
    $('error').textContent = e.message;
    return;
  }
  maybeBot();
}

async function main() {
  lab.info = await api.variants();
  for (const v of lab.info.variants) {
    const o = document.createElement('option');
    o.value = v.id;
    o.textContent = v.bot ? `${v.name} (generation ${v.generation})` : `${v.name} (no bot)`;
    $('variant').appendChild(o);
  }
  for (const l of lab.info.levels) {
    const o = document.createElement('option');
    o.value = l.name;
    o.textContent = `${l.name}: ${l.about}`;
    o.selected = l.name === lab.info.default_level;
    $('level').appendChild(o);
  }
  const params = new URLSearchParams(location.search);
  if (params.get('variant')) $('variant').value = params.get('variant');
  if (params.get('players')) $('players').value = params.get('players');
  if (params.get('position')) $('position').value = params.get('position');
  // A new variant starts its game at once (the old position box text
  // belongs to the old variant): the board and the "Measured" line agree.
  $('variant').addEventListener('change', () => {
    $('position').value = '';
    describeVariant();
    startGame();
  });
  $('new-game').addEventListener('click', startGame);
  $('pgn').addEventListener('input', () => {
    lab.pgnEdited = true;
  });
  $('pgn-load').addEventListener('click', loadPgn);
  $('pass').addEventListener('click', () => {
    const pass = lab.game.legal.find((m) => m.kind === 'pass');
    if (pass) humanMove(pass.move, []);
  });
  $('players').addEventListener('change', () => {
    lab.watching = $('players').value === 'watch';
    render();
    maybeBot();
  });
  $('stop').addEventListener('click', () => {
    lab.watching = false;
  });
  const retry = () => {
    if (!lab.error || mover() !== 'bot') return;
    lab.watching = $('players').value === 'watch';
    maybeBot();
  };
  $('retry').addEventListener('click', retry);
  $('nodes').addEventListener('change', retry);
  $('level').addEventListener('change', retry);
  describeVariant();
  await startGame();
}

/// The chosen variant's measured strength and side names (players menu).
function describeVariant() {
  const v = lab.info.variants.find((x) => x.id === $('variant').value);
  $('strength').textContent = v && v.strength ? `Measured: ${v.strength}` : '';
  if (!v) return;
  $('players').querySelector('[value="first"]').textContent = `You play first (${v.sides[0]})`;
  $('players').querySelector('[value="second"]').textContent = `You play second (${v.sides[1]})`;
}

main().catch((e) => {
  $('error').textContent = `The page could not start: ${e.message}`;
});
