// Drawing the board from the server's description (`board.style`,
// `board.squares` in reading order, each with its shade, mark and
// figure) and turning clicks into moves from the server's `legal` list:
// the page never decides what is legal itself, and knows no variant.

/// The piece `figure` (the server's description: shape, colour, symbol,
/// name) with position-text letter `letter`, as a DOM element.
export function pieceElement(letter, figure) {
  const el = document.createElement('span');
  el.className = `piece ${figure.shape} ${figure.colour}`;
  el.dataset.piece = letter;
  el.textContent = figure.symbol;
  el.title = figure.name;
  return el;
}

/// Draw `game.board` into `container`. `ui` holds the selection
/// (`ui.sel`, a list of square names), the highlighted targets
/// (`ui.targets`), the last move's squares, whether the board is drawn
/// flipped (`ui.flipped`), the pieces to pick from (`ui.pickable`), a
/// half-entered move's piece to show moved (`ui.preview`) and the click
/// handler.
export function drawBoard(container, game, ui) {
  const { board } = game;
  container.innerHTML = '';
  container.className = `board board-${board.style}`;
  container.style.gridTemplateColumns = `repeat(${board.width}, var(--sq))`;
  // The square size shares the window's width among the files (style.css).
  document.documentElement.style.setProperty('--files', board.width);
  if (ui.onSize) ui.onSize(board.height);
  // Flipped: turned half round, the first rank at the top.
  const squares = ui.flipped ? [...board.squares].reverse() : board.squares;
  squares.forEach((sq, i) => {
    const file = i % board.width;
    const row = Math.floor(i / board.width);
    const cell = document.createElement('div');
    cell.className = 'square';
    cell.dataset.square = sq.name;
    cell.title = sq.name;
    if (sq.shade) cell.classList.add(sq.shade);
    if (sq.hole) cell.classList.add('hole');
    if (sq.mark) cell.classList.add(sq.mark);
    if (sq.frozen) cell.classList.add('frozen');
    if (board.check === sq.name) cell.classList.add('check');
    if (ui.last.includes(sq.name)) cell.classList.add('last');
    if (ui.sel.includes(sq.name)) cell.classList.add('selected');
    if (ui.targets.has(sq.name)) cell.classList.add('target');
    if (ui.pickable && ui.pickable.has(sq.name)) cell.classList.add('pickable');
    // A move entered half way (a command's first step) shows its piece
    // where the step took it.
    const preview = ui.preview;
    const shown = !preview ? sq : sq.name === preview.to ? preview.piece : sq.name === preview.from ? null : sq;
    if (shown && shown.figure) cell.appendChild(pieceElement(shown.piece, shown.figure));
    if (file === 0) cell.appendChild(coord('rank', sq.name.slice(1)));
    if (row === board.height - 1) cell.appendChild(coord('file', sq.name[0]));
    container.appendChild(cell);
  });
  // A press on a square is a click; letting go over another square (a
  // drag) clicks that one too, so a piece is moved by click-click or by
  // dragging it.
  // On a touch screen the pointer is captured by the square it went down
  // on, so the square it comes up over is found from its position.
  const squareOf = (el) => (el && el.closest ? el.closest('[data-square]')?.dataset.square : undefined);
  container.onpointerdown = (e) => {
    const name = squareOf(e.target);
    if (e.button !== 0 || !name) return;
    pressed = name;
    ui.onClick(name);
  };
  container.onpointerup = (e) => {
    const name = squareOf(document.elementFromPoint(e.clientX, e.clientY)) ?? squareOf(e.target);
    const from = pressed;
    pressed = null;
    if (from && name && name !== from) ui.onClick(name);
  };
}

/// The square the pointer went down on, until it comes up.
let pressed = null;

function coord(kind, text) {
  const el = document.createElement('span');
  el.className = `coord ${kind}`;
  el.textContent = text;
  return el;
}

/// The legal moves of `kind` whose click path starts with `sel`.
export function candidates(legal, kind, sel) {
  return legal.filter(
    (m) => m.kind === kind && sel.length <= m.path.length && sel.every((s, i) => m.path[i] === s),
  );
}

/// The squares a move of `kind` starts from.
export function starts(legal, kind) {
  return new Set(legal.filter((m) => m.kind === kind && m.path.length > 0).map((m) => m.path[0]));
}

/// The squares that extend the selection `sel` towards a legal move.
export function targets(legal, kind, sel) {
  const out = new Set();
  if (sel.length === 0) return out;
  for (const m of candidates(legal, kind, sel)) {
    if (m.path.length > sel.length) out.add(m.path[sel.length]);
  }
  return out;
}

/// Apply a click on `square` to the selection `sel` for moves of `kind`.
/// Returns `{sel, done}`: `done` lists the moves the path now completes
/// (several only for promotions); a click that fits no legal move starts
/// over (from that square if a move starts there), so it changes nothing.
export function click(legal, kind, sel, square) {
  const next = [...sel, square];
  const fits = candidates(legal, kind, next);
  if (fits.length > 0 && sel.length > 0) return settle(fits, next);
  const fresh = candidates(legal, kind, [square]);
  if (fresh.length > 0) return settle(fresh, [square]);
  return { sel: [], done: [] };
}

function settle(fits, sel) {
  const complete = fits.filter((m) => m.path.length === sel.length);
  const longer = fits.some((m) => m.path.length > sel.length);
  return { sel, done: longer ? [] : complete };
}

/// The board's squares a move token names, in order, repeats next to
/// each other written once (`g:d4d6d6f6` gives d4, d6, f6): the squares
/// of `board` whose names appear in the token.
export function tokenSquares(board, token) {
  const names = new Set(board.squares.map((sq) => sq.name));
  const out = [];
  for (const name of token.match(/[a-z][0-9]+/g) || []) {
    if (names.has(name) && out[out.length - 1] !== name) out.push(name);
  }
  return out;
}

const SVG = 'http://www.w3.org/2000/svg';

/// Draw numbered arrows over the board in `container` (drawn by
/// drawBoard) for `lines`, each a list of square names: 1 for the first,
/// then 2, ...; a line of fewer than two squares is left out.
export function drawArrows(container, lines) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'arrows');
  const centre = (name) => {
    const cell = container.querySelector(`[data-square="${name}"]`);
    return cell ? [cell.offsetLeft + cell.offsetWidth / 2, cell.offsetTop + cell.offsetHeight / 2, cell.offsetWidth] : null;
  };
  const defs = document.createElementNS(SVG, 'defs');
  const marker = document.createElementNS(SVG, 'marker');
  marker.id = 'pv-head';
  for (const [k, v] of Object.entries({ viewBox: '0 0 10 10', refX: '5', refY: '5', markerWidth: '3', markerHeight: '3', orient: 'auto-start-reverse' })) {
    marker.setAttribute(k, v);
  }
  const head = document.createElementNS(SVG, 'path');
  head.setAttribute('d', 'M 0 0 L 10 5 L 0 10 z');
  head.setAttribute('fill', 'rgba(214, 90, 20, 0.9)');
  marker.appendChild(head);
  defs.appendChild(marker);
  svg.appendChild(defs);
  lines.forEach((squares, i) => {
    const points = squares.map(centre).filter(Boolean);
    if (points.length < 2) return;
    const size = points[0][2];
    const line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('class', 'pv-arrow');
    line.dataset.squares = squares.join(' ');
    line.setAttribute('points', points.map(([x, y]) => `${x},${y}`).join(' '));
    line.setAttribute('stroke-width', `${Math.max(3, size * 0.14)}`);
    line.setAttribute('opacity', `${1 - i * 0.25}`);
    line.setAttribute('marker-end', 'url(#pv-head)');
    svg.appendChild(line);
    const label = document.createElementNS(SVG, 'text');
    label.setAttribute('class', 'pv-label');
    label.setAttribute('x', `${points[0][0] - size * 0.35}`);
    label.setAttribute('y', `${points[0][1] - size * 0.2}`);
    label.setAttribute('font-size', `${Math.max(10, size * 0.32)}`);
    label.textContent = `${i + 1}`;
    svg.appendChild(label);
  });
  container.appendChild(svg);
}
