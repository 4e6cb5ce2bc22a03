// Browser tests of the web lab: the page at LAB_URL (a running
// `lokizero serve`) in Debian's chromium, headless, driven by
// playwright-core. run.sh starts the service and calls this.
//
// For every variant: start a game, make a legal move by clicking, see the
// bot answer; an illegal click changes nothing; a position one move from
// the end is finished by clicking; a screenshot of the page mid-game goes
// to $SCREENSHOTS/<variant>.png. Then one whole game, bot against bot.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BASE = process.env.LAB_URL;
// Screenshots go where SCREENSHOTS says (tests/web_browser.rs passes
// docs/web when asked to refresh them), else to a scratch folder, so a
// test run leaves the checkout clean.
const SHOTS = process.env.SCREENSHOTS || join(tmpdir(), 'lokizero-web-screenshots');
const NODES = '16'; // bot budget in these tests: quick, still a real search
const VARIANTS = ['losers', 'viking', 'hnefatafl', 'loki', 'shakti', 'copenhagen'];
// Positions one move from the end: [variant, players, position, clicks, winner text].
const LAST_MOVES = [
  ['losers', 'first', '4k3/8/8/8/8/8/4r2P/4K3 w - - 0 1', ['e1', 'e2'], 'Black won: bare king'],
  ['viking', 'first', 'k11/2K9/12/12/12/12/1Q10 w - - 0 1', ['b1', 'b7'], 'White won: checkmate'],
  ['hnefatafl', 'second', '5s5/11/11/11/11/11/11/11/11/11/1K9 d', ['b1', 'a1'], 'Defenders won: the king escaped'],
  ['loki', 'second', '5s5/11/11/11/11/11/11/11/11/11/1K9 d 3333/3333 -', ['b1', 'a1'], 'Defenders won: the king escaped'],
  ['shakti', 'first', 'kx5/xxW4/7/7/7/7/6K w', ['c6', 'c7'], 'White won: checkmate'],
  ['copenhagen', 'second', '5s5/11/11/11/11/11/11/11/11/11/1K9 d', ['b1', 'a1'], 'Defenders won: the king escaped'],
];

let failures = 0;
// Game ids a test asks for on purpose, knowing the server has no such game.
const GONE = ['0123456789abcdef0123456789abcdef'];
async function test(name, body) {
  // ONLY=REGEX runs the tests whose name matches (while editing the page).
  if (process.env.ONLY && !new RegExp(process.env.ONLY).test(name)) return;
  const started = Date.now();
  try {
    await body();
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}: ${e.stack || e}`);
  }
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/// Open the page with query `params` and wait for its first game.
async function open(page, params) {
  await page.goto(`${BASE}/?${new URLSearchParams(params)}`);
  await page.fill('#nodes', NODES);
  await settle(page);
  return page.evaluate(() => window.lab.game);
}

/// Wait until no request is in flight and it is a human's turn or the end.
async function settle(page, timeout = 30000) {
  await page.waitForFunction(
    () => window.lab && window.lab.game && !window.lab.busy && document.body.dataset.state !== 'thinking',
    null,
    { timeout },
  );
}

const game = (page) => page.evaluate(() => window.lab.game);
const clickSquare = (page, sq) => page.click(`[data-square="${sq}"]`);

/// Click the path of `move` (a `legal` entry), choosing its power first.
async function clickMove(page, move) {
  if (move.kind !== 'move' && move.kind !== 'pass') await page.click(`#power-buttons [data-kind="${move.kind}"]`);
  for (const sq of move.path) await clickSquare(page, sq);
  if (move.promotion) await page.click(`#promotion [data-move="${move.move}"]`);
}

async function main() {
  mkdirSync(SHOTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'lokizero-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
      '--no-first-run', '--disable-component-update', '--disable-sync',
    ],
  });
  // LAB_ASSETS=crates/serve/assets serves the page's files from that
  // folder instead of the binary's copies: edit and rerun without a rebuild.
  if (process.env.LAB_ASSETS) {
    const types = { html: 'text/html', js: 'text/javascript', css: 'text/css' };
    const serveFile = (name) => (route) =>
      route.fulfill({
        body: readFileSync(join(process.env.LAB_ASSETS, name)),
        contentType: `${types[name.split('.').pop()]}; charset=utf-8`,
      });
    await context.route(/\/assets\/[a-z]+\.(js|css|html)$/, (route) =>
      serveFile(new URL(route.request().url()).pathname.split('/').pop())(route),
    );
    await context.route((url) => url.pathname === '/', serveFile('index.html'));
  }
  const page = context.pages()[0] || (await context.newPage());
  page.on('pageerror', (e) => {
    failures += 1;
    console.log(`FAIL page error: ${e}`);
  });
  // Every resource the page asks for exists.
  page.on('response', (r) => {
    if (r.status() === 404 && !GONE.some((id) => r.url().endsWith(`/api/games/${id}`))) {
      failures += 1;
      console.log(`FAIL 404: ${r.url()}`);
    }
  });

  for (const variant of VARIANTS) {
    await test(`${variant}: a clicked move and the bot's answer`, async () => {
      const start = await open(page, { variant, players: 'first' });
      assert(start.variant === variant && start.moves.length === 0, `fresh ${variant} game`);
      const squares = await page.locator('#board .square').count();
      assert(squares === start.board.width * start.board.height, `board has ${squares} squares`);
      // Several moves, each answered by the bot, so the screenshot shows a game under way.
      for (let turn = 0; turn < 3; turn += 1) {
        const before = await game(page);
        if (before.outcome) break;
        const plain = before.legal.filter((m) => m.kind === 'move');
        const move = plain[(turn * 7) % plain.length];
        await clickMove(page, move);
        await page.waitForFunction((n) => window.lab.game.moves.length >= n, before.moves.length + 2, { timeout: 30000 });
        await settle(page);
        const after = await game(page);
        assert(after.moves[before.moves.length] === move.move, `played ${move.move}, list says ${after.moves}`);
        assert(before.legal.length > 0 && after.moves.length === before.moves.length + 2, 'the bot answered');
      }
      const listed = await page.locator('#moves li').count();
      assert(listed === (await game(page)).moves.length, 'the move list shows every move');
      const label = await page.textContent('#eval-label');
      assert(/W \d+% D \d+% L \d+%/.test(label), `evaluation shown: ${label}`);
      await page.screenshot({ path: join(SHOTS, `${variant}.png`) });
    });

    await test(`${variant}: an illegal click changes nothing`, async () => {
      const start = await open(page, { variant, players: 'first' });
      const starts = new Set(start.legal.map((m) => m.path[0]));
      const dead = start.board.squares.find((s) => !starts.has(s.name));
      await clickSquare(page, dead.name);
      let now = await game(page);
      assert(now.position === start.position && now.moves.length === 0, 'click on a square no move starts from');
      assert((await page.locator('.square.selected').count()) === 0, 'nothing selected');
      // A piece that can move, then a square none of its moves reaches.
      const from = start.legal.find((m) => m.kind === 'move').path[0];
      await clickSquare(page, from);
      assert((await page.locator('.square.target').count()) > 0, 'legal targets are highlighted');
      const reach = new Set(start.legal.filter((m) => m.path[0] === from).map((m) => m.path[1]));
      const wrong = start.board.squares.find((s) => !reach.has(s.name) && !starts.has(s.name) && s.name !== from);
      await clickSquare(page, wrong.name);
      await page.waitForTimeout(200);
      now = await game(page);
      assert(now.position === start.position && now.moves.length === 0, `illegal ${from}-${wrong.name} was not played`);
    });
  }

  for (const [variant, players, position, clicks, winner] of LAST_MOVES) {
    await test(`${variant}: the last move ends the game`, async () => {
      const start = await open(page, { variant, players, position });
      assert(start.position.startsWith(position.split(' ')[0]), 'the page started from the position');
      for (const sq of clicks) await clickSquare(page, sq);
      await page.waitForFunction(() => document.body.dataset.state === 'over', null, { timeout: 10000 });
      // The result in words: the side's name, "won", the reason (no code).
      const status = await page.textContent('#status');
      assert(status.includes('Game over') && status.includes(winner), `status: ${status}`);
      // The evaluation bar shows the result, never a contradicting guess.
      const label = await page.textContent('#eval-label');
      assert(label.startsWith('Result:') && label.includes(winner), `eval label: ${label}`);
      const over = await game(page);
      const height = await page.evaluate(() => document.getElementById('eval-fill').style.height);
      const expected = over.outcome.winner === 'first' ? '100%' : over.outcome.winner === 'second' ? '0%' : '50%';
      assert(height === expected, `bar ${height}, expected ${expected} for ${over.outcome.winner}`);
    });
  }

  await test('a failed bot move can be asked again', async () => {
    const start = await open(page, { variant: 'losers', players: 'first' });
    await page.fill('#nodes', '500000');
    await page.dispatchEvent('#nodes', 'change');
    await clickMove(page, start.legal.find((m) => m.kind === 'move'));
    await settle(page);
    const error = await page.textContent('#error');
    assert(/nodes/.test(error), `error shown: ${error}`);
    assert(await page.isVisible('#retry'), 'the retry button is shown');
    assert((await game(page)).moves.length === 1, 'the bot has not moved');
    // Correcting the field asks again.
    await page.fill('#nodes', NODES);
    await page.dispatchEvent('#nodes', 'change');
    await page.waitForFunction(() => window.lab.game.moves.length === 2, null, { timeout: 20000 });
    await settle(page);
    assert((await page.textContent('#error')) === '', 'the error is cleared');
    assert(!(await page.isVisible('#retry')), 'the retry button is hidden again');
  });

  await test('choosing another variant starts its game at once', async () => {
    await open(page, { variant: 'losers', players: 'first' });
    await page.selectOption('#variant', 'viking');
    await page.waitForFunction(() => window.lab.game.variant === 'viking', null, { timeout: 10000 });
    await settle(page);
    const squares = await page.locator('#board .square').count();
    assert(squares === 12 * 7, `the board has ${squares} squares`);
    const strength = await page.textContent('#strength');
    const listed = await page.evaluate(() => window.lab.info.variants.find((v) => v.id === 'viking').strength);
    assert(!listed || strength.includes(listed), `strength line: ${strength}`);
  });

  await test('Stop and Resume show in watch mode only; Resume goes on watching', async () => {
    await open(page, { variant: 'shakti', players: 'first' });
    assert(!(await page.isVisible('#stop')), 'Stop shown while playing');
    assert(!(await page.isVisible('#resume')), 'Resume shown while playing');
    await page.selectOption('#players', 'watch');
    await page.waitForFunction(() => !document.getElementById('stop').hidden, null, { timeout: 5000 });
    assert(!(await page.isVisible('#resume')), 'Resume shown while watching');
    await page.click('#stop');
    await settle(page);
    assert(!(await page.isVisible('#stop')), 'Stop shown after stopping');
    assert(await page.isVisible('#resume'), 'no Resume after stopping');
    const stopped = (await game(page)).moves.length;
    await page.waitForTimeout(600);
    assert((await game(page)).moves.length === stopped, 'the bots played on after Stop');
    await page.click('#resume');
    await page.waitForFunction((n) => window.lab.game.outcome || window.lab.game.moves.length >= n + 2, stopped, { timeout: 30000 });
    assert(await page.isVisible('#stop'), 'no Stop after resuming');
    await page.click('#stop');
    await settle(page);
  });

  await test('chess variants mark the king in check', async () => {
    await open(page, { variant: 'losers', players: 'second', position: '4k3/p7/8/8/8/8/4R3/4K3 b - - 0 1' });
    const marked = await page.evaluate(() => [...document.querySelectorAll('.square.check')].map((e) => e.dataset.square));
    assert(JSON.stringify(marked) === '["e8"]', `check marked on ${marked}`);
    const status = await page.textContent('#status');
    assert(status.includes('in check'), `status: ${status}`);
    const before = await game(page);
    await clickMove(page, before.legal.find((m) => m.move === 'e8d8') || before.legal[0]);
    await page.waitForFunction(() => window.lab.game.moves.length >= 1, null, { timeout: 30000 });
    await settle(page);
    const after = await game(page);
    const now = await page.locator('.square.check').count();
    assert(now === (after.board.check ? 1 : 0), `${now} squares marked, the board says ${after.board.check}`);
  });

  await test('the line (PV) wraps between moves, never inside one', async () => {
    await open(page, { variant: 'loki', players: 'first' });
    const pieces = await page.evaluate(() => {
      window.lab.pv = Array.from({ length: 40 }, (_, i) => (i % 2 ? 'g:d4d6d6f6' : `x:e${(i % 9) + 1}d4`));
      window.lab.render();
      const spans = [...document.querySelectorAll('#pv .pv-move')];
      const aside = document.querySelector('aside').getBoundingClientRect();
      return {
        count: spans.length,
        split: spans.filter((s) => s.getClientRects().length !== 1).map((s) => s.textContent),
        outside: spans.filter((s) => s.getBoundingClientRect().right > aside.right + 1).length,
      };
    });
    assert(pieces.count === 40, `${pieces.count} moves shown`);
    assert(pieces.split.length === 0, `moves broken across lines: ${pieces.split}`);
    assert(pieces.outside === 0, `${pieces.outside} moves stick out of the panel`);
  });

  await test('the page declares its icon (a browser asks no /favicon.ico, which 404s)', async () => {
    const icon = await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href'));
    assert(icon, 'no icon link');
  });

  await test('chess boards are coloured from a1, dark on every board', async () => {
    for (const variant of ['losers', 'viking']) {
      await open(page, { variant, players: 'first' });
      const shade = (sq) =>
        page.evaluate((name) => {
          const cell = document.querySelector(`[data-square="${name}"]`);
          return cell.classList.contains('dark') ? 'dark' : cell.classList.contains('light') ? 'light' : 'none';
        }, sq);
      assert((await shade('a1')) === 'dark', `${variant} a1 is ${await shade('a1')}`);
      assert((await shade('b1')) === 'light', `${variant} b1 is ${await shade('b1')}`);
    }
  });

  await test('a 300-ply move list is whole, readable and scrolled to the end', async () => {
    await open(page, { variant: 'shakti', players: 'first' });
    const list = await page.evaluate(() => {
      const moves = Array.from({ length: 300 }, (_, i) => `m${i + 1}`);
      window.lab.game = { ...window.lab.game, moves };
      window.lab.render();
      const el = document.getElementById('moves');
      const box = el.getBoundingClientRect();
      const within = (li) => {
        const r = li.getBoundingClientRect();
        return r.right <= box.right + 1 && r.left >= box.left - 1;
      };
      const last = el.lastElementChild.getBoundingClientRect();
      return {
        items: el.children.length,
        sideways: el.scrollWidth > el.clientWidth + 1,
        allWithin: [...el.children].every(within),
        lastVisible: last.bottom <= box.bottom + 1 && last.top >= box.top - 1,
        lastText: el.lastElementChild.textContent,
      };
    });
    assert(list.items === 300, `${list.items} items`);
    assert(!list.sideways && list.allWithin, 'the move list overflows sideways');
    assert(list.lastVisible, 'the newest move is scrolled into view');
    assert(list.lastText === 'm300', `last item ${list.lastText}`);
  });

  await test('a reload keeps the game, its moves and the menus', async () => {
    const start = await open(page, { variant: 'viking', players: 'first' });
    await page.selectOption('#level', 'casual');
    for (let turn = 0; turn < 2; turn += 1) {
      const before = await game(page);
      await clickMove(page, before.legal.find((m) => m.kind === 'move'));
      await page.waitForFunction((n) => window.lab.game.moves.length >= n, before.moves.length + 2, { timeout: 30000 });
      await settle(page);
    }
    const played = await game(page);
    assert(played.moves.length === 4 && played.id === start.id, `moves ${played.moves}`);
    assert(page.url().includes(`game=${played.id}`), `address ${page.url()}`);
    await page.reload();
    await settle(page);
    const back = await game(page);
    assert(back.id === played.id, `game ${back.id}, was ${played.id}`);
    assert(back.position === played.position, `position ${back.position}, was ${played.position}`);
    assert(JSON.stringify(back.moves) === JSON.stringify(played.moves), `moves ${back.moves}, were ${played.moves}`);
    assert((await page.locator('#moves li').count()) === 4, 'the move list is shown');
    const squares = await page.locator('#board .square').count();
    assert(squares === 12 * 7, `the board has ${squares} squares`);
    const menus = await page.evaluate(() => ['variant', 'players', 'level', 'nodes'].map((id) => document.getElementById(id).value));
    assert(JSON.stringify(menus) === JSON.stringify(['viking', 'first', 'casual', NODES]), `menus ${menus}`);
    // A game the server no longer has: a new one, and a word why.
    await page.goto(`${BASE}/?variant=losers&players=first&game=${GONE[0]}`);
    await settle(page);
    const fresh = await game(page);
    assert(fresh.variant === 'losers' && fresh.moves.length === 0, 'a new game');
    assert(/gone/.test(await page.textContent('#error')), 'the page says the old game is gone');
  });

  await test('the board flips: a button, and the second player at the bottom when the human plays second', async () => {
    // Where a1 is drawn, against h8: bottom-left, or top-right when flipped.
    const a1 = () =>
      page.evaluate(() => {
        const at = (name) => document.querySelector(`[data-square="${name}"]`).getBoundingClientRect();
        const [a, h] = [at('a1'), at('h8')];
        if (a.top > h.top && a.left < h.left) return 'bottom-left';
        if (a.top < h.top && a.left > h.left) return 'top-right';
        return `elsewhere (${a.left},${a.top} against ${h.left},${h.top})`;
      });
    await open(page, { variant: 'losers', players: 'first' });
    assert((await a1()) === 'bottom-left', `playing first, a1 is ${await a1()}`);
    await page.click('#flip');
    assert((await a1()) === 'top-right', `flipped, a1 is ${await a1()}`);
    const fill = await page.evaluate(() => getComputedStyle(document.getElementById('eval-fill')).top);
    assert(fill === '0px', `the bar fills from the top when flipped (top ${fill})`);
    await page.click('#flip');
    assert((await a1()) === 'bottom-left', `flipped back, a1 is ${await a1()}`);
    await open(page, { variant: 'losers', players: 'second' });
    assert((await a1()) === 'top-right', `playing second, a1 is ${await a1()}`);
    // The flipped board still plays by clicks.
    const before = await game(page);
    assert(before.side_to_move === 'second', 'the bot has moved first');
    await clickMove(page, before.legal[0]);
    await page.waitForFunction((n) => window.lab.game.moves.length >= n, before.moves.length + 2, { timeout: 30000 });
    await settle(page);
    assert((await a1()) === 'top-right', `still flipped: a1 is ${await a1()}`);
  });

  await test("the evaluation bar takes the sides' piece colours", async () => {
    // [variant, the first player's piece colour]: tafl attackers are dark.
    for (const [variant, first] of [['losers', 'light'], ['hnefatafl', 'dark'], ['shakti', 'light']]) {
      await open(page, { variant, players: 'first' });
      const shades = await page.evaluate(() => {
        const shade = (el) => {
          const [r, g, b] = getComputedStyle(el).backgroundColor.match(/\d+/g).map(Number);
          return (r + g + b) / 3 > 128 ? 'light' : 'dark';
        };
        return [shade(document.getElementById('eval-fill')), shade(document.getElementById('eval'))];
      });
      const second = first === 'light' ? 'dark' : 'light';
      assert(shades[0] === first && shades[1] === second, `${variant}: bar ${shades}, pieces ${first}, ${second}`);
      const listed = await page.evaluate((v) => window.lab.info.variants.find((x) => x.id === v).colours, variant);
      assert(listed[0] === first, `${variant}: /api/variants colours ${listed}`);
    }
  });

  await test('Take back undoes your move and the bot answer', async () => {
    const start = await open(page, { variant: 'losers', players: 'first' });
    assert(await page.isDisabled('#undo'), 'Take back enabled before any move');
    await clickMove(page, start.legal[0]);
    await page.waitForFunction(() => window.lab.game.moves.length >= 2, null, { timeout: 30000 });
    await settle(page);
    const two = await game(page);
    await clickMove(page, two.legal[0]);
    await page.waitForFunction(() => window.lab.game.moves.length >= 4, null, { timeout: 30000 });
    await settle(page);
    await page.click('#undo');
    await page.waitForFunction(() => window.lab.game.moves.length === 2, null, { timeout: 10000 });
    await settle(page);
    const back = await game(page);
    assert(back.position === two.position && back.side_to_move === 'first', `position ${back.position}, was ${two.position}`);
    assert((await page.locator('#moves li').count()) === 2, 'the move list has two moves');
    await page.click('#undo');
    await page.waitForFunction(() => window.lab.game.moves.length === 0, null, { timeout: 10000 });
    assert((await game(page)).position === start.position, 'back at the start');
    assert(await page.isDisabled('#undo'), 'Take back enabled at the start');
  });

  await test('a piece moves by dragging it, and by typing the move', async () => {
    const start = await open(page, { variant: 'losers', players: 'first' });
    const move = start.legal.find((m) => m.kind === 'move' && !m.promotion);
    const centre = async (sq) => {
      const box = await page.locator(`[data-square="${sq}"]`).boundingBox();
      return [box.x + box.width / 2, box.y + box.height / 2];
    };
    const [fx, fy] = await centre(move.path[0]);
    const [tx, ty] = await centre(move.path[1]);
    await page.mouse.move(fx, fy);
    await page.mouse.down();
    await page.mouse.move(tx, ty, { steps: 8 });
    await page.mouse.up();
    await page.waitForFunction(() => window.lab.game.moves.length >= 2, null, { timeout: 30000 });
    await settle(page);
    let now = await game(page);
    assert(now.moves[0] === move.move, `dragged ${move.move}, played ${now.moves[0]}`);
    // Typing: an illegal text is refused with a word, a legal one played.
    await page.fill('#move-input', 'a1a8');
    await page.press('#move-input', 'Enter');
    assert(/not a legal move/.test(await page.textContent('#error')), 'an illegal typed move is refused');
    assert((await game(page)).moves.length === 2, 'the illegal typed move was not played');
    const typed = now.legal[now.legal.length - 1].move;
    await page.fill('#move-input', typed);
    await page.press('#move-input', 'Enter');
    await page.waitForFunction(() => window.lab.game.moves.length >= 4, null, { timeout: 30000 });
    await settle(page);
    now = await game(page);
    assert(now.moves[2] === typed, `typed ${typed}, played ${now.moves[2]}`);
    assert((await page.textContent('#help')).includes('type a move'), 'the help line tells how');
  });

  await test('a finger drags a piece on a phone-sized screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
    const start = await open(page, { variant: 'losers', players: 'first' });
    const move = start.legal.find((m) => m.kind === 'move' && !m.promotion);
    // A touch pointer is captured by the square it went down on, so its
    // pointerup may be sent there, with the position where the finger
    // came up (Pointer Events, implicit capture for touch).
    const touched = await page.evaluate(([from, to]) => {
      const origin = document.querySelector(`[data-square="${from}"]`);
      document.querySelector('.board').scrollIntoView({ block: 'center' });
      const box = (sq) => document.querySelector(`[data-square="${sq}"]`).getBoundingClientRect();
      const at = (b) => ({ clientX: b.x + b.width / 2, clientY: b.y + b.height / 2 });
      const event = (type, b) => new PointerEvent(type, { bubbles: true, pointerType: 'touch', isPrimary: true, button: 0, ...at(b) });
      origin.dispatchEvent(event('pointerdown', box(from)));
      // The press redrew the board: the square now drawn at `from` holds
      // the capture.
      document.querySelector(`[data-square="${from}"]`).dispatchEvent(event('pointerup', box(to)));
      return getComputedStyle(document.querySelector('.board')).touchAction;
    }, move.path);
    await page.waitForFunction(() => window.lab.game.moves.length >= 2, null, { timeout: 30000 });
    await settle(page);
    const now = await game(page);
    assert(now.moves[0] === move.move, `dragged ${move.move} by touch, played ${now.moves[0]}`);
    assert(touched === 'none', `the board lets the page scroll under a dragging finger (touch-action ${touched})`);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  await test('a capture names the piece it took; the taken pieces show beside the board', async () => {
    // Losers chess: the capture is forced.
    await open(page, { variant: 'losers', players: 'first', position: '4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1' });
    await clickSquare(page, 'e4');
    await clickSquare(page, 'd5');
    await page.waitForFunction(() => window.lab.game.moves.length >= 1, null, { timeout: 10000 });
    await page.waitForFunction(() => document.getElementById('removed').textContent.includes('e4d5'), null, { timeout: 10000 });
    const text = await page.textContent('#removed');
    assert(text.includes('e4d5 took the Black pawn on d5'), `message: ${text}`);
    await settle(page);
    // Beside the board: White (at the bottom) took a black pawn, Black nothing.
    const row = (id) =>
      page.evaluate((el) => {
        const e = document.getElementById(el);
        return { text: e.textContent, pieces: [...e.querySelectorAll('.piece')].map((p) => p.title + '/' + p.className) };
      }, id);
    const bottom = await row('taken-bottom');
    const top = await row('taken-top');
    assert(bottom.text.startsWith('White took') && bottom.pieces.length === 1 && /pawn\/.*dark/.test(bottom.pieces[0]), `bottom: ${JSON.stringify(bottom)}`);
    assert(top.text.startsWith('Black took') && top.pieces.length === 0, `top: ${JSON.stringify(top)}`);
    // A promotion takes nothing: the pawn became a queen.
    await open(page, { variant: 'losers', players: 'human', position: '4k2n/P7/8/8/8/8/8/4K3 w - - 0 1' });
    await clickSquare(page, 'a7');
    await clickSquare(page, 'a8');
    await page.click('#promotion [data-move="a7a8q"]');
    await page.waitForFunction(() => window.lab.game.moves.length === 1, null, { timeout: 10000 });
    const promoted = await page.evaluate(() => [document.getElementById('removed').textContent, document.querySelectorAll('.taken .piece').length]);
    assert(promoted[0] === '' && promoted[1] === 0, `after a promotion: ${promoted}`);
  });

  await test('the taken pieces survive opening the game in a new tab', async () => {
    await open(page, { variant: 'losers', players: 'human', position: '4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1' });
    await clickSquare(page, 'e4');
    await clickSquare(page, 'd5');
    await page.waitForFunction(() => window.lab.game.moves.length === 1, null, { timeout: 10000 });
    const tab = await page.context().newPage();
    try {
      await tab.goto(page.url());
      await settle(tab);
      const bottom = await tab.evaluate(() => {
        const e = document.getElementById('taken-bottom');
        return { text: e.textContent, pieces: [...e.querySelectorAll('.piece')].map((p) => p.title) };
      });
      assert(bottom.text.startsWith('White took') && JSON.stringify(bottom.pieces) === '["pawn"]', `new tab: ${JSON.stringify(bottom)}`);
      const removed = await tab.textContent('#removed');
      assert(removed.includes('e4d5 took the Black pawn on d5'), `new tab: ${removed}`);
    } finally {
      await tab.close();
    }
  });

  await test('the rules panel shows the variant\'s section of docs/rules.md', async () => {
    await open(page, { variant: 'losers', players: 'first' });
    assert(!(await page.isVisible('#rules')), 'the panel starts folded');
    await page.click('#rules-box summary');
    const summary = await page.textContent('#rules-box summary');
    assert(summary.includes('losers') && summary.includes('Losers Chess'), `summary: ${summary}`);
    const text = await page.textContent('#rules');
    assert(text.includes('Capturing is compulsory'), `losers rules: ${text.slice(0, 200)}`);
    assert(!text.includes('**') && !text.includes('`'), 'the Markdown is rendered');
    const items = await page.locator('#rules li').count();
    assert(items > 3, `${items} list items`);
    await page.selectOption('#variant', 'shakti');
    await page.waitForFunction(() => window.lab.game.variant === 'shakti', null, { timeout: 10000 });
    await settle(page);
    const shakti = await page.textContent('#rules-box summary');
    const served = await page.evaluate(() => window.lab.info.variants.find((v) => v.id === 'shakti').rules.split('\n')[0]);
    assert(shakti.includes('Shakti') && served.startsWith('## ') && served.includes('`shakti`'), `summary ${shakti}, served ${served}`);
    assert(!(await page.textContent('#rules')).includes('Capturing is compulsory'), 'the old rules are gone');
    await page.click('#rules-box summary');
  });

  await test('the page says how many self-play games trained the bot, and what it counts', async () => {
    await open(page, { variant: 'viking', players: 'first' });
    const trained = await page.evaluate(() => window.lab.info.variants.find((v) => v.id === 'viking').trained);
    const text = await page.textContent('#trained');
    const expected = `Bot trained: about ${trained.games.toLocaleString('en')} self-play games`;
    assert(text.startsWith(expected), `"${text}" should start "${expected}"`);
    assert(text.includes(`${trained.positions.toLocaleString('en')} self-play positions over ${trained.generations} generations`), text);
    assert(text.includes('positions a game'), text);
  });

  await test('the evaluation graph grows one point per ply, bot against bot, and survives a reload', async () => {
    await open(page, { variant: 'shakti', players: 'watch' });
    const seen = [];
    for (let n = 1; n <= 4; n += 1) {
      await page.waitForFunction((k) => window.lab.game.moves.length >= k || window.lab.game.outcome, n, { timeout: 30000 });
      seen.push(
        await page.evaluate(() => [
          window.lab.game.moves.length,
          document.querySelectorAll('#wdl-graph .wdl-point').length,
          window.lab.game.evals.filter((e) => e).length,
        ]),
      );
    }
    // Two humans from here, so the reload does not go on watching.
    await page.selectOption('#players', 'human');
    await settle(page);
    for (const [moves, points, evals] of seen) {
      assert(points === moves && evals === moves, `after ${moves} plies: ${points} points, ${evals} evaluations (${JSON.stringify(seen)})`);
    }
    const now = await game(page);
    const drawn = await page.locator('#wdl-graph .wdl-point').count();
    assert(drawn === now.moves.length, `${drawn} points for ${now.moves.length} plies`);
    await page.reload();
    await settle(page);
    const again = await page.locator('#wdl-graph .wdl-point').count();
    assert(again === drawn, `after a reload ${again} points, were ${drawn}`);
    const box = await page.evaluate(() => {
      const g = document.getElementById('wdl-graph').getBoundingClientRect();
      const b = document.getElementById('board').getBoundingClientRect();
      return { top: g.top, bottom: b.bottom, height: g.height };
    });
    assert(box.top >= box.bottom && box.height > 20, `the graph is under the board: ${JSON.stringify(box)}`);
  });

  await test('the first moves of the bot\'s line are arrows on the board', async () => {
    await open(page, { variant: 'losers', players: 'human' });
    const drawn = await page.evaluate(() => {
      window.lab.pv = ['e2e4', 'e7e5', 'g1f3', 'b8c6'];
      window.lab.pvFrom = 0;
      window.lab.render();
      return [...document.querySelectorAll('#board svg.arrows .pv-arrow')].map((a) => {
        const first = a.points.getItem(0);
        const sq = document.querySelector(`[data-square="${a.dataset.squares.split(' ')[0]}"]`).getBoundingClientRect();
        const svg = a.ownerSVGElement.getBoundingClientRect();
        return { squares: a.dataset.squares, dx: svg.left + first.x - (sq.left + sq.width / 2), dy: svg.top + first.y - (sq.top + sq.height / 2) };
      });
    });
    assert(JSON.stringify(drawn.map((d) => d.squares)) === '["e2 e4","e7 e5","g1 f3"]', `arrows ${JSON.stringify(drawn)}`);
    assert(drawn.every((d) => Math.abs(d.dx) < 2 && Math.abs(d.dy) < 2), `arrows start at their squares: ${JSON.stringify(drawn)}`);
    // The line moves on with the game: after e2e4 the arrows start at e7e5.
    await clickMove(page, (await game(page)).legal.find((m) => m.move === 'e2e4'));
    await settle(page);
    const next = await page.evaluate(() => [...document.querySelectorAll('#board svg.arrows .pv-arrow')].map((a) => a.dataset.squares));
    assert(JSON.stringify(next) === '["e7 e5","g1 f3","b8 c6"]', `after e2e4: ${next}`);
    // A bot's answer draws its own line from the position it left.
    await open(page, { variant: 'losers', players: 'first' });
    await clickMove(page, (await game(page)).legal.find((m) => m.move === 'e2e3'));
    await page.waitForFunction(() => window.lab.game.moves.length >= 2, null, { timeout: 30000 });
    await settle(page);
    const bot = await page.evaluate(() => [window.lab.pv, document.querySelectorAll('#board svg.arrows .pv-arrow').length]);
    assert(bot[1] === Math.min(3, bot[0].length - 1), `the bot's line ${bot[0]}: ${bot[1]} arrows`);
  });

  await test('Top moves shows the bot\'s best root moves with visits and WDL', async () => {
    const start = await open(page, { variant: 'viking', players: 'first' });
    assert(!(await page.isVisible('#top-table')), 'no table before asking');
    await page.click('#top-moves');
    await page.waitForFunction(() => document.querySelectorAll('#top-table .top-move').length > 0, null, { timeout: 30000 });
    const rows = await page.evaluate(() => [...document.querySelectorAll('#top-table .top-move')].map((r) => [...r.children].map((c) => c.textContent)));
    assert(rows.length >= 1 && rows.length <= 5, `${rows.length} rows`);
    const legal = new Set(start.legal.map((m) => m.move));
    for (const [move, visits, w, d, l] of rows) {
      assert(legal.has(move), `${move} is not legal here`);
      assert(/^\d+$/.test(visits), `visits ${visits}`);
      // An unvisited move has no WDL.
      const pattern = Number(visits) > 0 ? /^\d+%$/ : /^-$/;
      assert([w, d, l].every((x) => pattern.test(x)), `${move}: ${visits} visits, WDL ${w} ${d} ${l}`);
    }
    const visits = rows.map((r) => Number(r[1]));
    assert(visits[0] > 0, `the best move was searched: ${visits}`);
    assert(visits.every((v, i) => i === 0 || v <= visits[i - 1]), `best first: ${visits}`);
    assert((await game(page)).moves.length === 0, 'asking played nothing');
  });

  await test('a move list from a position with the second player to move starts "1. ... e5"', async () => {
    await open(page, { variant: 'losers', players: 'human', position: '4k3/p7/8/3p4/4P3/8/P7/4K3 b - - 0 1' });
    await clickMove(page, (await game(page)).legal.find((m) => m.move === 'd5e4'));
    await settle(page);
    await clickMove(page, (await game(page)).legal[0]);
    await settle(page);
    const items = await page.evaluate(() =>
      [...document.querySelectorAll('#moves li')].map((li) => ({ text: li.textContent, left: li.getBoundingClientRect().left })),
    );
    assert(items.length === 3 && items[0].text === '1. ...' && items[1].text === 'dxe4' && /^2\. \S/.test(items[2].text), `list ${JSON.stringify(items)}`);
    assert(items[1].left > items[0].left && items[2].left === items[0].left, `columns ${JSON.stringify(items)}`);
  });

  await test('the arrow keys step through the game without taking moves back', async () => {
    await open(page, { variant: 'losers', players: 'human' });
    for (const uci of ['e2e4', 'b7b5', 'f1b5']) {
      await clickMove(page, (await game(page)).legal.find((m) => m.move === uci));
      await settle(page);
    }
    const piece = (sq) => page.evaluate((name) => document.querySelector(`[data-square="${name}"] .piece`)?.dataset.piece || null, sq);
    const viewing = () => page.evaluate(() => document.body.dataset.viewing);
    await page.click('h1'); // focus away from the inputs
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.body.dataset.viewing === '2', null, { timeout: 5000 });
    assert((await piece('b5')) === 'p' && (await piece('f1')) === 'B', 'after move 2: the black pawn on b5, the bishop at home');
    assert((await page.textContent('#status')).includes('after move 2 of 3'), await page.textContent('#status'));
    assert((await page.locator('#moves li.viewed').textContent()) === 'b5', 'the move list marks the move');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.body.dataset.viewing === '1', null, { timeout: 5000 });
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.body.dataset.viewing === '0', null, { timeout: 5000 });
    assert((await piece('e2')) === 'P' && (await piece('e4')) === null, 'the start position');
    await page.keyboard.press('ArrowLeft'); // nothing before the start
    await page.waitForTimeout(200);
    assert((await viewing()) === '0', 'still at the start');
    // A click while looking back plays nothing.
    await clickSquare(page, 'd2');
    await clickSquare(page, 'd4');
    await page.waitForTimeout(200);
    assert((await game(page)).moves.length === 3, 'a click played a move while looking back');
    for (const ply of ['1', '2', '']) {
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((v) => document.body.dataset.viewing === v, ply, { timeout: 5000 });
    }
    assert((await piece('b5')) === 'B' && (await game(page)).moves.length === 3, 'back at the game as it stands');
    // Typing in the move box is not stepping.
    await page.focus('#move-input');
    await page.keyboard.press('ArrowLeft');
    await page.waitForTimeout(200);
    assert((await viewing()) === '', 'an arrow key in the move box stepped back');
  });

  await test('loki: powers are picked, guided, previewed and put down after use', async () => {
    const start = await open(page, { variant: 'loki', players: 'first' });
    assert(await page.isVisible('#frozen-legend'), 'no legend for the frozen ring');
    const kinds = [...new Set(start.legal.map((m) => m.kind))];
    const command = start.legal.find((m) => m.kind === 'command' && m.path.length === 3);
    assert(command, `a command at the start (kinds ${kinds})`);
    await page.click('#power-buttons [data-kind="command"]');
    const pickable = await page.evaluate(() => [...document.querySelectorAll('.square.pickable')].map((e) => e.dataset.square));
    const from = new Set(start.legal.filter((m) => m.kind === 'command').map((m) => m.path[0]));
    assert(pickable.length === from.size && pickable.every((sq) => from.has(sq)), `pickable ${pickable}`);
    let hint = await page.textContent('#hint');
    assert(hint.startsWith('Command: click one of your pieces'), `hint: ${hint}`);
    await clickSquare(page, command.path[0]);
    await clickSquare(page, command.path[1]);
    // The piece is drawn on its first step's square while the second is chosen.
    const shown = await page.evaluate(([a, b]) => {
      const piece = (sq) => document.querySelector(`[data-square="${sq}"] .piece`)?.dataset.piece || null;
      return [piece(a), piece(b)];
    }, command.path);
    const letter = start.board.squares.find((sq) => sq.name === command.path[0]).piece;
    assert(shown[0] === null && shown[1] === letter, `shown ${shown}, the piece ${letter}`);
    hint = await page.textContent('#hint');
    assert(/^Command: click .* \(click 3 of 3\)/.test(hint), `hint: ${hint}`);
    await clickSquare(page, command.path[2]);
    await page.waitForFunction(() => window.lab.game.moves.length >= 1, null, { timeout: 30000 });
    await settle(page);
    assert((await page.evaluate(() => window.lab.kind)) === 'move', 'the power is still chosen');
    assert((await page.getAttribute('#power-buttons .active', 'data-kind')) === 'move', 'Move is not the active button');
    const exchange = (await game(page)).legal.find((m) => m.kind === 'exchange');
    if (exchange) {
      await page.click('#power-buttons [data-kind="exchange"]');
      hint = await page.textContent('#hint');
      assert(hint.startsWith('Exchange: click an enemy piece'), `hint: ${hint}`);
      await page.click('#power-buttons [data-kind="move"]');
    }
    await open(page, { variant: 'losers', players: 'first' });
    assert(!(await page.isVisible('#frozen-legend')), 'a frozen legend in chess');
  });

  await test('a phone (390x844) shows the whole board, the panel under it', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const variant of ['hnefatafl', 'viking', 'losers', 'shakti']) {
        await open(page, { variant, players: 'first' });
        // With the rules panel open, the evaluation graph under the board.
        await page.click('#rules-box summary');
        const fit = await page.evaluate(() => {
          const box = document.getElementById('board').getBoundingClientRect();
          const square = document.querySelector('#board .square').getBoundingClientRect();
          const aside = document.querySelector('aside').getBoundingClientRect();
          return {
            scrollWidth: document.scrollingElement.scrollWidth,
            left: box.left,
            right: box.right,
            bottom: box.bottom,
            square: square.width,
            asideTop: aside.top,
          };
        });
        const wide = await page.evaluate(() =>
          [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > 390)
            .map((e) => `${e.tagName}#${e.id}.${e.className}:${Math.round(e.getBoundingClientRect().right)}`)
            .slice(0, 5),
        );
        assert(fit.scrollWidth <= 390, `${variant}: the page is ${fit.scrollWidth}px wide (${wide})`);
        assert(fit.left >= 0 && fit.right <= 390, `${variant}: the board spans ${fit.left}..${fit.right}`);
        assert(fit.square >= 24, `${variant}: squares of ${fit.square}px`);
        assert(fit.asideTop >= fit.bottom, `${variant}: the panel (top ${fit.asideTop}) is beside the board (bottom ${fit.bottom})`);
        const graph = await page.evaluate(() => document.getElementById('wdl-graph').getBoundingClientRect().right);
        assert(graph <= 390, `${variant}: the graph reaches ${graph}px`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  await test('chess: the move list in SAN, and a PGN copied out and pasted back', async () => {
    await open(page, { variant: 'losers', players: 'human' });
    for (const uci of ['e2e4', 'b7b5', 'f1b5']) {
      await clickMove(page, (await game(page)).legal.find((m) => m.move === uci));
      await settle(page);
    }
    const items = await page.locator('#moves li').allTextContents();
    assert(items.join(' ') === '1. e4 b5 2. Bxb5', `move list: ${items.join(' | ')}`);
    const before = await game(page);
    await page.click('#pgn-box summary');
    const pgn = await page.inputValue('#pgn');
    assert(pgn.includes('[Variant "losers"]') && pgn.includes('1. e4 b5 2. Bxb5 *'), `PGN box: ${pgn}`);
    await page.click('#new-game');
    await page.waitForFunction(() => window.lab.game.moves.length === 0, null, { timeout: 10000 });
    await settle(page);
    await page.fill('#pgn', pgn);
    await page.click('#pgn-load');
    await page.waitForFunction(() => window.lab.game.moves.length === 3, null, { timeout: 10000 });
    await settle(page);
    const after = await game(page);
    assert(after.position === before.position, `same position: ${after.position} vs ${before.position}`);
    assert(after.pgn === before.pgn, 'the same PGN comes back');
    assert((await page.locator('#moves li').allTextContents()).join(' ') === '1. e4 b5 2. Bxb5', 'the list again');
    // A PGN with an illegal move names it and changes nothing.
    await page.fill('#pgn', '1. e4 b5 2. Bc4 *');
    await page.click('#pgn-load');
    await page.waitForFunction(() => document.getElementById('error').textContent !== '', null, { timeout: 10000 });
    const error = await page.textContent('#error');
    assert(error.includes('move 2. Bc4'), `error: ${error}`);
    assert((await game(page)).position === before.position, 'the game is unchanged');
  });

  await test('the others: the game text copied out and pasted back', async () => {
    for (const variant of ['hnefatafl', 'loki', 'shakti']) {
      const start = await open(page, { variant, players: 'human' });
      for (let i = 0; i < 3; i += 1) {
        const legal = (await game(page)).legal.filter((m) => m.kind === 'move');
        await clickMove(page, legal[(i * 3) % legal.length]);
        await settle(page);
      }
      const before = await game(page);
      if (!(await page.locator('#pgn-box').getAttribute('open'))) await page.click('#pgn-box summary');
      assert((await page.textContent('#pgn-title')) === 'Game text', `${variant}: the box is the game text`);
      const text = await page.inputValue('#pgn');
      assert(text.includes(`variant ${variant}`) && text.includes(`moves ${before.moves.join(' ')}`), `${variant} text: ${text}`);
      await page.click('#new-game');
      await page.waitForFunction(() => window.lab.game.moves.length === 0, null, { timeout: 10000 });
      await settle(page);
      await page.fill('#pgn', text);
      await page.click('#pgn-load');
      await page.waitForFunction((n) => window.lab.game.moves.length === n, before.moves.length, { timeout: 10000 });
      await settle(page);
      const after = await game(page);
      assert(after.position === before.position, `${variant}: same position: ${after.position} vs ${before.position}`);
      assert(start.moves.length === 0, 'a fresh game at the start');
    }
    // A move that cannot be played is named, and the game stays.
    const kept = await game(page);
    await page.fill('#pgn', 'variant shakti\nposition startpos\nmoves a1a1\n');
    await page.click('#pgn-load');
    await page.waitForFunction(() => document.getElementById('error').textContent !== '', null, { timeout: 10000 });
    const error = await page.textContent('#error');
    assert(error.includes('move 1 ("a1a1")'), `error: ${error}`);
    assert((await game(page)).position === kept.position, 'the game is unchanged');
    // A refused record of another variant leaves the menu on the game's.
    await page.fill('#pgn', 'variant hnefatafl\nposition garbage\nmoves\n');
    await page.click('#pgn-load');
    await page.waitForFunction(() => !/a1a1/.test(document.getElementById('error').textContent), null, { timeout: 10000 });
    assert((await page.inputValue('#variant')) === kept.variant, 'the menu stayed on the game');
    // Text that is no record says what the box takes.
    for (const [text, needle] of [['asdf qwer', 'paste a PGN'], ['variant chess\nmoves', 'unknown variant "chess"'], ['variant shakti\n1. d2d3', 'only variant, position and moves']]) {
      await page.fill('#pgn', text);
      await page.click('#pgn-load');
      const said = await page.textContent('#error');
      assert(said.includes(needle), `"${text}": ${said}`);
    }
    assert((await game(page)).position === kept.position, 'still the same game');
  });

  await test('losers: a whole game, bot against bot', async () => {
    await open(page, { variant: 'losers', players: 'watch' });
    await page.waitForFunction(() => document.body.dataset.state === 'over', null, { timeout: 100000 });
    const over = await game(page);
    const status = await page.textContent('#status');
    assert(over.outcome && status.includes('Game over'), `ended: ${status}`);
    console.log(`     ${over.moves.length} plies, ${over.outcome.text}`);

  });

  await context.close();
  rmSync(profile, { recursive: true, force: true });
  if (failures > 0) {
    console.log(`${failures} browser test(s) failed`);
    process.exit(1);
  }
  console.log('all browser tests passed');
}

main().catch((e) => {
  console.log(`FAIL ${e.stack || e}`);
  process.exit(1);
});
