// The web lab page: pick a variant and who plays, click to move, let the
// bot answer or watch the bot play itself; evaluation bar, move list and
// the game's end from the server's answers.
import * as api from './api.js';
import { drawBoard, pieceElement, click, targets, starts, candidates, removedPieces } from './board.js';

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
  // What each move took off the board (removedPieces), one list per move
  // played; null when not known (a game restored without this tab's copy).
  taken: [],
  figures: new Map(), // how to draw each side's pieces, by "side/name", as seen on the board
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
  const before = lab.game;
  const n = game.moves.length;
  if (before && before.id === game.id && lab.taken && n === before.moves.length + 1) {
    lab.taken = [...lab.taken.slice(0, n - 1), removedPieces(before.board, game.board, last || [])];
  } else if (before && before.id === game.id && lab.taken && n <= lab.taken.length) {
    lab.taken = lab.taken.slice(0, n); // taken back
  } else if (!before || before.id !== game.id) {
    lab.taken = n === 0 ? [] : storedTaken(game);
  }
  if (lab.taken) sessionStorage.setItem(`lokizero-taken-${game.id}`, JSON.stringify(lab.taken));
  for (const sq of (before ? [before, game] : [game]).flatMap((g) => g.board.squares)) {
    if (sq.figure) lab.figures.set(`${sq.figure.side}/${sq.figure.name}`, sq.figure);
  }
  lab.game = game;
  lab.sel = [];
  lab.choices = [];
  if (last) lab.last = last;
  if (!game.legal.some((m) => m.kind === lab.kind)) lab.kind = 'move';
  render();
}

/// The taken pieces of game `game` that this tab kept (a reload), if
/// they cover its moves.
function storedTaken(game) {
  try {
    const taken = JSON.parse(sessionStorage.getItem(`lokizero-taken-${game.id}`));
    return Array.isArray(taken) && taken.length === game.moves.length ? taken : null;
  } catch {
    return null;
  }
}

lab.render = () => render(); // redraw (the browser tests draw long move lists)

function render() {
  const game = lab.game;
  const info = variantInfo();
  drawBoard($('board'), game, {
    sel: lab.sel,
    targets: targets(game.legal, lab.kind, lab.sel),
    // A power's pieces to pick from are marked before the first click.
    pickable: lab.kind !== 'move' && lab.sel.length === 0 ? starts(game.legal, lab.kind) : null,
    preview: preview(game),
    last: lab.last,
    flipped: lab.flipped,
    onClick: onSquare,
    onSize: (ranks) => {
      $('eval').style.height = `calc(var(--sq) * ${ranks})`;
    },
  });
  // The bar fills from the first player's end of the board.
  $('eval').classList.toggle('flipped', lab.flipped);
  renderPowers(info);
  $('hint').textContent = hintText(info);
  renderTaken(info);
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
/// on SQUARE."), and beside the board the pieces each side has taken.
function renderTaken(info) {
  const taken = lab.taken || [];
  const moves = lab.game.moves;
  const side = (s) => info.sides[s === 'first' ? 0 : 1];
  $('removed').textContent = taken
    .map((pieces, i) => ({ pieces, move: moves[i], i }))
    .filter((t) => t.i >= moves.length - 2 && t.pieces.length > 0)
    .map((t) => `${t.move} took ${t.pieces.map((p) => `the ${side(p.side)} ${p.name} on ${p.square}`).join(', ')}.`)
    .join(' ');
  const all = taken.flat();
  // The side at the top of the board first.
  const order = lab.flipped ? ['first', 'second'] : ['second', 'first'];
  order.forEach((taker, row) => {
    const el = $(row === 0 ? 'taken-top' : 'taken-bottom');
    el.innerHTML = '';
    el.dataset.side = taker;
    if (!lab.taken) {
      el.textContent = '';
      return;
    }
    const label = document.createElement('span');
    label.textContent = `${side(taker)} took: `;
    el.appendChild(label);
    for (const p of all.filter((x) => x.side !== taker)) {
      const figure = lab.figures.get(`${p.side}/${p.name}`);
      if (figure) el.appendChild(pieceElement('', figure));
    }
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
  describeVariant();
  await startGame('', pgn);
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
  const pct = (x) => `${Math.round(x * 100)}%`;
  label.textContent = `${info.sides[0]}: W ${pct(w)} D ${pct(d)} L ${pct(l)}`;
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
  if (game.outcome) {
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

/// Start a new game from the menus (or from `pgn`, a PGN text); `note`
/// is shown as the error line (why an old game could not be restored).
async function startGame(note = '', pgn = undefined) {
  lab.error = note;
  lab.pgnEdited = false;
  lab.watching = $('players').value === 'watch';
  lab.wdl = null;
  lab.last = [];
  lab.kind = 'move';
  lab.flipped = defaultFlip();
  lab.pv = [];
  try {
    const position = pgn ? undefined : $('position').value.trim() || undefined;
    const game = await api.newGame($('variant').value, position, pgn);
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
