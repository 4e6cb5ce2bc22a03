// The web lab page: pick a variant and who plays, click to move, let the
// bot answer or watch the bot play itself; evaluation bar, move list and
// the game's end from the server's answers.
import * as api from './api.js';
import { drawBoard, drawArrows, tokenSquares, pieceElement, click, targets, starts, candidates } from './board.js';

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
  pv: [], // the bot's latest principal variation (move tokens)
  pvFrom: 0, // the number of moves played when the bot searched that line
  // An earlier position shown with the arrow keys: {ply, game} (the game
  // as it stood after `ply` moves), or null for the game as it stands.
  view: null,
  top: null, // the bot's top moves here ({moves, answer}), when asked
  flipped: false, // the board is drawn turned half round (second player at the bottom)
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
  lab.view = null;
  if (lab.top && JSON.stringify(lab.top.moves) !== JSON.stringify(game.moves)) lab.top = null;
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
  // An earlier position (arrow keys) is drawn as it was, to look at only.
  const shown = lab.view ? lab.view.game : game;
  drawBoard($('board'), shown, {
    sel: lab.view ? [] : lab.sel,
    targets: lab.view ? new Set() : targets(game.legal, lab.kind, lab.sel),
    // A power's pieces to pick from are marked before the first click.
    pickable: !lab.view && lab.kind !== 'move' && lab.sel.length === 0 ? starts(game.legal, lab.kind) : null,
    preview: lab.view ? null : preview(game),
    last: lab.view ? lastSquares(shown) : lab.last,
    flipped: lab.flipped,
    onClick: onSquare,
    onSize: (ranks) => {
      $('eval').style.height = `calc(var(--sq) * ${ranks})`;
    },
  });
  // The bot's expected line from here: its first moves as arrows.
  if (!lab.view) drawArrows($('board'), pvAhead().slice(0, 3).map((m) => tokenSquares(game.board, m)));
  // The bar fills from the first player's end of the board.
  $('eval').classList.toggle('flipped', lab.flipped);
  renderPowers(info);
  $('hint').textContent = hintText(info);
  renderTaken(info, shown);
  renderMoves(info);
  renderEval(info);
  renderGraph(info);
  renderTop();
  renderStatus(info);
  $('promotion').innerHTML = '';
  for (const m of lab.choices) {
    const b = document.createElement('button');
    b.textContent = m.promotion.toUpperCase();
    b.dataset.move = m.move;
    b.addEventListener('click', () => humanMove(m.move, m.path));
    $('promotion').appendChild(b);
  }
  $('undo').disabled = takeBack() === 0;
  $('move-input').placeholder = game.legal.length > 0 ? `e.g. ${game.legal[0].move}` : '';
  const pass = game.legal.find((m) => m.kind === 'pass');
  $('pass').hidden = !pass || mover() !== 'human';
  // Stop and Resume belong to watch mode (bot against bot) only.
  const watch = $('players').value === 'watch';
  $('stop').hidden = !watch || !lab.watching;
  $('resume').hidden = !watch || lab.watching || !!game.outcome;
  renderPv();
  $('position-text').textContent = game.position;
  saveAddress();
  document.body.dataset.state = game.outcome ? 'over' : lab.busy ? 'thinking' : 'idle';
  document.body.dataset.viewing = lab.view ? `${lab.view.ply}` : '';
}

/// The bot's principal variation from the position on the board: after
/// the bot's move its line starts with that move, which is played.
function pvAhead() {
  const moves = lab.game.moves;
  const played = moves.length - lab.pvFrom;
  if (played < 0 || played > lab.pv.length) return [];
  // The moves played since the search must be the line's first ones.
  for (let i = 0; i < played; i += 1) if (moves[lab.pvFrom + i] !== lab.pv[i]) return [];
  return lab.pv.slice(played);
}

/// The squares of the last move of `game` (an earlier position).
function lastSquares(game) {
  const moves = game.moves;
  return moves.length > 0 ? tokenSquares(game.board, moves[moves.length - 1]) : [];
}

/// Show the position after `ply` moves (the arrow keys): the game as it
/// stood then, from the server; the game as it stands at the end.
async function viewPly(ply) {
  const game = lab.game;
  const n = game.moves.length;
  if (ply < 0 || ply > n || lab.busy) return;
  if (ply === n) {
    lab.view = null;
    render();
    return;
  }
  try {
    const then = await api.gameAt(game.id, ply);
    if (lab.game !== game) return; // the game moved on meanwhile
    lab.view = { ply, game: then };
  } catch (e) {
    lab.error = e.message;
  }
  render();
}

/// Left and Right step back and forward through the game's positions
/// (for looking only: the game is not taken back); not while typing.
function onKey(e) {
  if (e.target.closest && e.target.closest('input, textarea, select')) return;
  if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
  e.preventDefault();
  const at = lab.view ? lab.view.ply : lab.game.moves.length;
  viewPly(at + (e.key === 'ArrowLeft' ? -1 : 1));
}

/// A selection of two squares or more that no move has completed yet is
/// one piece's way so far (a command's first step): `{from, to, piece}`
/// to draw the piece of `from` on `to`, else null.
function preview(game) {
  if (lab.sel.length < 2 || lab.choices.length > 0) return null;
  const from = game.board.squares.find((sq) => sq.name === lab.sel[0]);
  if (!from || !from.figure) return null;
  return { from: lab.sel[0], to: lab.sel[lab.sel.length - 1], piece: from };
}

/// What to click next, in words: the kind of move being entered and
/// whether its next square holds one of the mover's pieces, an enemy
/// piece or nothing (read from the legal moves and the board).
function hintText(info) {
  const game = lab.game;
  if (game.outcome || lab.busy || mover() !== 'human') return '';
  if (lab.choices.length > 0) return 'Choose the piece to promote to.';
  const fits = candidates(game.legal, lab.kind, lab.sel);
  if (fits.length === 0) return '';
  const next = new Set(fits.filter((m) => m.path.length > lab.sel.length).map((m) => m.path[lab.sel.length]));
  const side = game.side_to_move;
  const what = new Set(
    game.board.squares
      .filter((sq) => next.has(sq.name))
      .map((sq) => (!sq.figure ? 'an empty square' : sq.figure.side === side ? 'one of your pieces' : 'an enemy piece')),
  );
  const power = game.board.powers.find((p) => p.kind === lab.kind);
  const name = power ? power.name : 'Move';
  const steps = Math.max(...fits.map((m) => m.path.length));
  const step = steps > 1 ? ` (click ${lab.sel.length + 1} of ${steps})` : '';
  const target = what.size === 1 ? [...what][0] : 'a marked square';
  return `${name}: click ${target}${step}.`;
}

/// Keep the game and the menus in the address, so a reload (or a
/// bookmark, within the server's idle timeout) comes back to this game.
function saveAddress() {
  const params = new URLSearchParams();
  params.set('variant', lab.game.variant);
  params.set('players', $('players').value);
  params.set('level', $('level').value);
  const nodes = parseInt($('nodes').value, 10);
  if (nodes > 0) params.set('nodes', nodes);
  if (lab.game.start !== 'startpos') params.set('position', lab.game.start);
  params.set('game', lab.game.id);
  const address = `?${params}`;
  if (location.search !== address) history.replaceState(null, '', address);
}

/// The powers panel, from the board's `powers` (kind, name, uses per
/// side); hidden for a variant without powers.
function renderPowers(info) {
  const panel = $('powers');
  const powers = lab.game.board.powers;
  $('frozen-legend').hidden = !lab.game.board.squares.some((sq) => sq.frozen) && powers.length === 0;
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

/// What the last two moves took, in words ("MOVE took the SIDE PIECE
/// on SQUARE."), and beside the board the pieces each side has taken,
/// from the server's record of the game shown (`game.taken`).
function renderTaken(info, game) {
  const taken = game.taken;
  const moves = game.moves;
  const side = (s) => info.sides[s === 'first' ? 0 : 1];
  $('removed').textContent = taken
    .map((pieces, i) => ({ pieces, move: moves[i], i }))
    .filter((t) => t.i >= moves.length - 2 && t.pieces.length > 0)
    .map((t) => `${t.move} took ${t.pieces.map((p) => `the ${side(p.figure.side)} ${p.figure.name} on ${p.square}`).join(', ')}.`)
    .join(' ');
  const all = taken.flat();
  // The side at the top of the board first.
  const order = lab.flipped ? ['first', 'second'] : ['second', 'first'];
  order.forEach((taker, row) => {
    const el = $(row === 0 ? 'taken-top' : 'taken-bottom');
    el.innerHTML = '';
    el.dataset.side = taker;
    const label = document.createElement('span');
    label.textContent = `${side(taker)} took: `;
    el.appendChild(label);
    for (const p of all.filter((x) => x.figure.side !== taker)) el.appendChild(pieceElement('', p.figure));
  });
}

/// The principal variation, one unbreakable span per move.
function renderPv() {
  const pv = $('pv');
  pv.innerHTML = '';
  lab.pv.forEach((m, i) => {
    if (i > 0) pv.append(' ');
    const span = document.createElement('span');
    span.className = 'pv-move';
    span.textContent = m;
    pv.appendChild(span);
  });
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
  // Sides alternate move by move: the side that made the first move.
  const other = game.side_to_move === 'first' ? 'second' : 'first';
  let second = (game.moves.length % 2 === 0 ? game.side_to_move : other) === 'second';
  // The second player moved first (a set-up position): the first row
  // reads "1. ... e5", the first player's column left empty.
  if (second && game.moves.length > 0) {
    const li = document.createElement('li');
    li.className = 'placeholder';
    li.textContent = san ? `${number}. ...` : '...';
    li.style.listStyleType = 'none';
    list.appendChild(li);
  }
  game.moves.forEach((m, i) => {
    const li = document.createElement('li');
    li.title = m;
    if (san) {
      li.textContent = second ? san[i] : `${number}. ${san[i]}`;
      if (second) number += 1;
      second = !second;
    } else {
      li.textContent = m;
      li.title = `${i + 1}`;
      li.value = i + 1;
    }
    if (lab.view && i === lab.view.ply - 1) li.classList.add('viewed');
    list.appendChild(li);
  });
  const viewed = list.querySelector('.viewed');
  if (viewed) viewed.scrollIntoView({ block: 'nearest' });
  else if (!lab.view) list.scrollTop = list.scrollHeight;
  $('pgn-title').textContent = game.pgn != null ? 'PGN' : 'Game text';
  if (!lab.pgnEdited) $('pgn').value = game.pgn != null ? game.pgn : gameText(game);
}

/// The game text of a variant without PGN: `variant ID`, `position TEXT`
/// (`startpos` for the variant's start) and `moves` with the move
/// tokens, one line each.
function gameText(game) {
  return `variant ${game.variant}\nposition ${game.start}\nmoves ${game.moves.join(' ')}\n`;
}

/// Start a game from the record in the box: a PGN (its [Variant] tag
/// picks the variant) or a game text (`gameText`). The menus change only
/// once the game has started; a text that is neither is refused with a
/// word on what the box takes.
async function loadPgn() {
  const text = $('pgn').value;
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const keyed = (key) => lines.find((l) => new RegExp(`^${key}(\\s|$)`).test(l));
  const value = (key) => (keyed(key) || '').slice(key.length).trim();
  const pgnTag = /\[Variant "([^"]*)"\]/.exec(text);
  const isText = !text.includes('[') && lines.some((l) => /^(variant|position|moves)(\s|$)/.test(l));
  let variant = $('variant').value;
  let record;
  if (isText) {
    const stray = lines.find((l) => !/^(variant|position|moves)(\s|$)/.test(l));
    if (stray) return refuseRecord(`a game text has only variant, position and moves lines; not "${stray.slice(0, 40)}"`);
    if (keyed('variant')) variant = value('variant').toLowerCase();
    record = { position: value('position') || 'startpos', moves: value('moves').split(/\s+/).filter(Boolean) };
  } else {
    if (pgnTag) variant = pgnTag[1].toLowerCase();
    const looksPgn = pgnTag || /^\s*(\[|1\.)/.test(text);
    if (!looksPgn) {
      return refuseRecord('paste a PGN (losers, viking) or a game text: lines "variant ID", "position TEXT" and "moves TOKENS"');
    }
    record = { pgn: text };
  }
  // A variant by its id or its name, as the server reads a [Variant] tag.
  const named = lab.info.variants.find((v) => v.id === variant || v.name.toLowerCase() === variant);
  if (!named) {
    return refuseRecord(`unknown variant "${variant}" (one of ${lab.info.variants.map((v) => v.id).join(', ')})`);
  }
  if (await startGame('', record, named.id)) describeVariant();
}

/// Say why the Game record box's text was not started from.
function refuseRecord(why) {
  lab.error = `Not started: ${why}.`;
  $('error').textContent = lab.error;
}

function renderEval(info) {
  const bar = $('eval-fill');
  const label = $('eval-label');
  // Each side's share in the colour of its pieces (the variant's colours).
  bar.style.background = `var(--piece-${info.colours[0]})`;
  $('eval').style.background = `var(--piece-${info.colours[1]})`;
  const outcome = lab.game.outcome;
  if (outcome) {
    // The game is decided: the bar shows the result, not a guess.
    const first = outcome.winner === 'first' ? 1 : outcome.winner === 'second' ? 0 : 0.5;
    bar.style.height = `${first * 100}%`;
    label.textContent = `Result: ${resultText(info, outcome)}`;
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
  label.textContent = `${info.sides[0]}: W ${pct(w)} D ${pct(d)} L ${pct(l)}`;
}

const pct = (x) => `${Math.round(x * 100)}%`;

/// The bot's evaluation over the game as an SVG line under the board:
/// one point per move the bot chose (`game.evals`, the root WDL of its
/// search, first player's view), at the position it moved from; the
/// first player's expected score W + D/2, 1 at the top.
function renderGraph(info) {
  const svg = $('wdl-graph');
  const evals = lab.game.evals;
  const n = lab.game.moves.length;
  const [w, h] = [Math.max(n, 1), 100];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.innerHTML = '';
  const SVG = 'http://www.w3.org/2000/svg';
  const add = (tag, attrs, title) => {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (title) {
      const t = document.createElementNS(SVG, 'title');
      t.textContent = title;
      el.appendChild(t);
    }
    svg.appendChild(el);
    return el;
  };
  add('line', { class: 'mid', x1: 0, y1: h / 2, x2: w, y2: h / 2 });
  const points = evals
    .map((e, i) => (e ? { i, e, y: (1 - (e[0] + e[1] / 2)) * h } : null))
    .filter(Boolean);
  if (points.length > 1) add('polyline', { class: 'line', points: points.map((p) => `${p.i},${p.y}`).join(' ') });
  for (const p of points) {
    // A circle in a stretched box would be an ellipse: a short vertical
    // tick of non-scaling stroke marks each point instead.
    add('line', { class: 'wdl-point', x1: p.i, y1: p.y - 3, x2: p.i, y2: p.y + 3, 'data-ply': p.i, stroke: '#1c5a8a', 'stroke-width': 4, 'vector-effect': 'non-scaling-stroke' },
      `before move ${p.i + 1}: ${info.sides[0]} W ${pct(p.e[0])} D ${pct(p.e[1])} L ${pct(p.e[2])}`);
  }
  if (lab.view) add('line', { class: 'viewed', x1: lab.view.ply, y1: 0, x2: lab.view.ply, y2: h });
  svg.dataset.points = `${points.length}`;
}

/// Ask the bot for its best moves in the position on the board
/// (POST /api/analyse at the level's or the Nodes box's budget).
async function askTop() {
  const game = lab.game;
  if (lab.busy || game.outcome) return;
  const level = lab.info.levels.find((l) => l.name === $('level').value);
  const nodes = parseInt($('nodes').value, 10) > 0 ? parseInt($('nodes').value, 10) : level && level.nodes;
  const request = { variant: game.variant, position: game.start, moves: game.moves, top: 5 };
  if (nodes) request.nodes = nodes;
  lab.error = '';
  $('top-moves').disabled = true;
  try {
    const answer = await api.analyse(request);
    if (lab.game === game) lab.top = { moves: game.moves, answer };
  } catch (e) {
    lab.error = e.message;
  }
  $('top-moves').disabled = false;
  render();
}

/// The top moves table: each root move with its visits and WDL (the side
/// to move's view), best first.
function renderTop() {
  const table = $('top-table');
  table.innerHTML = '';
  table.hidden = !lab.top || !!lab.view;
  $('top-moves').hidden = !!lab.game.outcome;
  if (table.hidden) return;
  const cell = (tag, text) => {
    const el = document.createElement(tag);
    el.textContent = text;
    return el;
  };
  const { answer } = lab.top;
  const head = document.createElement('tr');
  head.append(...['Move', 'Visits', 'W', 'D', 'L'].map((t) => cell('th', t)));
  table.appendChild(head);
  const caption = document.createElement('caption');
  caption.textContent = `Top moves (${answer.root.visits} nodes; WDL for the side to move)`;
  table.appendChild(caption);
  for (const a of answer.actions) {
    const row = document.createElement('tr');
    row.className = 'top-move';
    const wdl = a.wdl || [null, null, null];
    row.append(
      cell('td', a.pv && a.pv.length > 0 ? a.pv[0] : a.action),
      cell('td', a.visits),
      ...wdl.map((x) => cell('td', x == null ? '-' : pct(x))),
    );
    table.appendChild(row);
  }
}

/// Words for the rules' end reasons (`outcome.reason`, the same codes in
/// every variant); a code missing here is split into its words.
const REASONS = {
  Checkmate: 'checkmate',
  BareKing: 'bare king',
  Stalemate: 'stalemate',
  NoMovesEitherSide: 'neither side can move',
  NoLegalAction: 'no legal move',
  ThreefoldRepetition: 'threefold repetition',
  FiftyMoveRule: 'fifty-move rule',
  InsufficientMaterial: 'insufficient material',
  KingEscaped: 'the king escaped',
  KingCaptured: 'the king was captured',
  PlyCap: 'move limit',
};

function reasonText(reason) {
  return REASONS[reason] || reason.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/// "SIDE won: REASON" or "Draw: REASON", in words.
function resultText(info, outcome) {
  const who = outcome.winner ? `${info.sides[outcome.winner === 'first' ? 0 : 1]} won` : 'Draw';
  return `${who}: ${reasonText(outcome.reason)}`;
}

function renderStatus(info) {
  const game = lab.game;
  const side = info.sides[game.side_to_move === 'first' ? 0 : 1];
  let text;
  if (lab.view) {
    text = `Looking at the position after move ${lab.view.ply} of ${game.moves.length} (Right arrow: forward)`;
  } else if (game.outcome) {
    text = `Game over. ${resultText(info, game.outcome)}`;
  } else {
    const check = game.board.check ? ', in check' : '';
    const who = lab.busy ? ': the bot is thinking…' : mover() === 'human' ? ' (you)' : '';
    text = `${side} to move${check}${who}`;
  }
  $('status').textContent = text;
  $('error').textContent = lab.error;
  // A failed bot move (e.g. Nodes over the service's cap) can be asked again.
  $('retry').hidden = !(lab.error && !lab.busy && !game.outcome && mover() === 'bot');
}

function onSquare(square) {
  if (lab.busy || lab.view || lab.game.outcome || mover() !== 'human') return;
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
    lab.kind = 'move'; // a power is chosen for one move
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
    lab.pv = answer.bot.pv;
    lab.pvFrom = answer.moves.length - 1;
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

/// The board starts with the human's side at the bottom: flipped when
/// the human plays second.
function defaultFlip() {
  return $('players').value === 'second';
}

/// How many moves Take back undoes: against the bot, back to the human's
/// previous turn (the bot's answer and the human's move); between two
/// humans, one; 0 when there is nothing to take back (or in watch mode,
/// or while the bot thinks). Sides alternate move by move.
function takeBack() {
  const game = lab.game;
  const mode = $('players').value;
  if (lab.busy || mode === 'watch') return 0;
  const played = game.moves.length;
  if (mode === 'human') return Math.min(1, played);
  // The side that made the last move; the human's move is the last one
  // when the game ended on it (or the bot has not answered yet).
  const lastMover = game.side_to_move === 'first' ? 'second' : 'first';
  const plies = lastMover === mode ? 1 : 2;
  return played >= plies ? plies : 0;
}

async function undoMoves() {
  const plies = takeBack();
  if (plies === 0) return;
  lab.error = '';
  lab.busy = true;
  try {
    const game = await api.undo(lab.game.id, plies);
    lab.busy = false;
    lab.wdl = null;
    lab.pv = [];
    lab.kind = 'move';
    setState(game, []);
  } catch (e) {
    lab.busy = false;
    lab.error = e.message;
    render();
  }
}

/// A move typed in the move box: a legal move's token (as the move list
/// writes it), played when Enter is pressed.
function typedMove() {
  const text = $('move-input').value.trim();
  if (!text || lab.busy || lab.game.outcome || mover() !== 'human') return;
  const m = lab.game.legal.find((x) => x.move.toLowerCase() === text.toLowerCase());
  if (!m) {
    lab.error = `${text} is not a legal move here`;
    render();
    return;
  }
  $('move-input').value = '';
  humanMove(m.move, m.path);
}

function botRequest() {
  const request = { level: $('level').value };
  const nodes = parseInt($('nodes').value, 10);
  if (nodes > 0) request.nodes = nodes;
  return request;
}

/// Start a new game from the menus (or from `record`: `{pgn}` or
/// `{position, moves}`, see `api.newGame`, of `variant`); `note` is shown
/// as the error line (why an old game could not be restored). Returns
/// whether the game started.
async function startGame(note = '', record = undefined, variant = $('variant').value) {
  lab.error = note;
  lab.pgnEdited = false;
  lab.watching = $('players').value === 'watch';
  lab.wdl = null;
  lab.last = [];
  lab.kind = 'move';
  lab.flipped = defaultFlip();
  lab.pv = [];
  try {
    const position = record ? undefined : $('position').value.trim() || undefined;
    const game = await api.newGame(variant, position, record);
    // The menu follows the game once it exists (a record of another variant).
    $('variant').value = game.variant;
    lab.busy = false;
    setState(game, []);
  } catch (e) {
    lab.error = e.message;
    $('error').textContent = e.message;
    return false;
  }
  maybeBot();
  return true;
}

/// The variant menu's label of `v`: its name and its bot's generation.
const variantLabel = (v) => (v.bot ? `${v.name} (generation ${v.generation})` : `${v.name} (no bot)`);

/// How often the page reads the variants again when their bots may
/// change (`live`: the service follows a training run).
const LIVE_REFRESH_MS = 2000;

/// Read the variants again and show the new generations and training.
async function refreshVariants() {
  try {
    const info = await api.variants();
    lab.info.variants = info.variants;
    for (const v of info.variants) {
      const o = $('variant').querySelector(`option[value="${v.id}"]`);
      if (o) o.textContent = variantLabel(v);
    }
    describeVariant();
  } catch {
    // The next round tries again (the service may be busy or restarting).
  }
}

async function main() {
  lab.info = await api.variants();
  for (const v of lab.info.variants) {
    const o = document.createElement('option');
    o.value = v.id;
    o.textContent = variantLabel(v);
    $('variant').appendChild(o);
  }
  if (lab.info.live) setInterval(refreshVariants, LIVE_REFRESH_MS);
  for (const l of lab.info.levels) {
    const o = document.createElement('option');
    o.value = l.name;
    o.textContent = `${l.name}: ${l.about}`;
    o.selected = l.name === lab.info.default_level;
    $('level').appendChild(o);
  }
  const params = new URLSearchParams(location.search);
  // A menu takes the address's value only when it offers it.
  for (const menu of ['variant', 'players', 'level']) {
    const value = params.get(menu);
    if ([...$(menu).options].some((o) => o.value === value)) $(menu).value = value;
  }
  if (params.get('position')) $('position').value = params.get('position');
  if (parseInt(params.get('nodes'), 10) > 0) $('nodes').value = params.get('nodes');
  // A new variant starts its game at once (the old position box text
  // belongs to the old variant): the board and the "Measured" line agree.
  $('variant').addEventListener('change', () => {
    $('position').value = '';
    describeVariant();
    startGame();
  });
  $('new-game').addEventListener('click', () => startGame());
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
    lab.flipped = defaultFlip();
    render();
    maybeBot();
  });
  $('undo').addEventListener('click', undoMoves);
  $('top-moves').addEventListener('click', askTop);
  document.addEventListener('keydown', onKey);
  $('move-input').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') typedMove();
  });
  $('flip').addEventListener('click', () => {
    lab.flipped = !lab.flipped;
    render();
  });
  $('stop').addEventListener('click', () => {
    lab.watching = false;
    render();
  });
  $('resume').addEventListener('click', () => {
    lab.watching = true;
    render();
    maybeBot();
  });
  const retry = () => {
    if (!lab.error || mover() !== 'bot') return;
    lab.watching = $('players').value === 'watch';
    maybeBot();
  };
  $('retry').addEventListener('click', retry);
  $('nodes').addEventListener('change', retry);
  $('level').addEventListener('change', retry);
  // The address names a game (a reload): take it up where it was.
  const id = params.get('game');
  if (id) {
    try {
      const game = await api.getGame(id);
      $('variant').value = game.variant;
      describeVariant();
      lab.watching = $('players').value === 'watch';
      lab.flipped = defaultFlip();
      setState(game, []);
      maybeBot();
      return;
    } catch (e) {
      describeVariant();
      await startGame(`The game of the address is gone (${e.message}); this is a new one.`);
      return;
    }
  }
  describeVariant();
  await startGame();
}

/// The chosen variant's measured strength, training, rules and side
/// names (players menu).
function describeVariant() {
  const v = lab.info.variants.find((x) => x.id === $('variant').value);
  $('strength').textContent = v && v.strength ? `Measured: ${v.strength}` : '';
  $('trained').textContent = v && v.trained ? trainedText(v.trained) : '';
  renderRules(v ? v.rules || '' : '');
  if (!v) return;
  $('players').querySelector('[value="first"]').textContent = `You play first (${v.sides[0]})`;
  $('players').querySelector('[value="second"]').textContent = `You play second (${v.sides[1]})`;
}

main().catch((e) => {
  $('error').textContent = `The page could not start: ${e.message}`;
});

const number = (x) => x.toLocaleString('en');

/// "Bot trained: about N self-play games", and what N counts: the
/// bundle's model.json records the lineage's self-play positions and the
/// last generation's games, so N is the positions over the last
/// generation's positions per game.
function trainedText(t) {
  return (
    `Bot trained: about ${number(t.games)} self-play games ` +
    `(${number(t.positions)} self-play positions over ${t.generations} generations, ` +
    `divided by the last generation's ${t.positions_per_game.toFixed(1)} positions a game)`
  );
}

/// The variant's rules (its section of docs/rules.md, Markdown, from
/// /api/variants) in the rules panel: headings, paragraphs, lists and
/// tables, with `code`, **bold** and *emphasis*; links as their text.
function renderRules(markdown) {
  const box = $('rules');
  box.innerHTML = '';
  const lines = markdown.split('\n');
  const inline = (parent, text) => {
    const re = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*]+\*|\[[^\]]+\]\([^)]*\))/g;
    let at = 0;
    for (const m of text.matchAll(re)) {
      parent.append(text.slice(at, m.index));
      const t = m[0];
      let el;
      if (t.startsWith('`')) {
        el = document.createElement('code');
        el.textContent = t.slice(1, -1);
      } else if (t.startsWith('**')) {
        el = document.createElement('strong');
        inline(el, t.slice(2, -2));
      } else if (t.startsWith('*')) {
        el = document.createElement('em');
        inline(el, t.slice(1, -1));
      } else {
        el = document.createElement('span');
        inline(el, t.slice(1, t.indexOf('](')));
      }
      parent.append(el);
      at = m.index + t.length;
    }
    parent.append(text.slice(at));
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i += 1;
    } else if (/^#+ /.test(line)) {
      const h = document.createElement('h3');
      inline(h, line.replace(/^#+ /, ''));
      box.appendChild(h);
      i += 1;
    } else if (line.startsWith('|')) {
      const table = document.createElement('table');
      for (; i < lines.length && lines[i].startsWith('|'); i += 1) {
        if (/^\|[-| :]+\|$/.test(lines[i])) continue;
        const row = document.createElement('tr');
        for (const c of lines[i].slice(1, -1).split('|')) {
          const td = document.createElement('td');
          inline(td, c.trim());
          row.appendChild(td);
        }
        table.appendChild(row);
      }
      box.appendChild(table);
    } else if (/^- /.test(line)) {
      const ul = document.createElement('ul');
      while (i < lines.length && /^(- |  )/.test(lines[i])) {
        let text = lines[i].slice(2);
        for (i += 1; i < lines.length && /^  /.test(lines[i]) && !/^- /.test(lines[i]); i += 1) text += ` ${lines[i].trim()}`;
        const li = document.createElement('li');
        inline(li, text);
        ul.appendChild(li);
      }
      box.appendChild(ul);
    } else {
      let text = line;
      for (i += 1; i < lines.length && lines[i].trim() !== '' && !/^(#+ |- |\|)/.test(lines[i]); i += 1) text += ` ${lines[i].trim()}`;
      const p = document.createElement('p');
      inline(p, text);
      box.appendChild(p);
    }
  }
  $('rules-box').querySelector('summary').textContent = markdown ? `Rules: ${markdown.split('\n')[0].replace(/^#+ /, '').replace(/`/g, '')}` : 'Rules';
}
