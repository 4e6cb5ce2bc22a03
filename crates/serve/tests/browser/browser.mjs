// Browser tests of the web lab: the page at LAB_URL (a running
// `lokizero serve`) in Debian's chromium, headless, driven by
// playwright-core. run.sh starts the service and calls this.
//
// For every variant: start a game, make a legal move by clicking, see the
// bot answer; an illegal click changes nothing; a position one move from
// the end is finished by clicking; a screenshot of the page mid-game goes
// to $SCREENSHOTS/<variant>.png. Then one whole game, bot against bot.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BASE = process.env.LAB_URL;
// Screenshots go where SCREENSHOTS says (tests/web_browser.rs passes
// docs/web when asked to refresh them), else to a scratch folder, so a
// test run leaves the checkout clean.
const SHOTS = process.env.SCREENSHOTS || join(tmpdir(), 'lokizero-web-screenshots');
const NODES = '16'; // bot budget in these tests: quick, still a real search
const VARIANTS = ['losers', 'viking', 'hnefatafl', 'loki', 'shakti'];
// Positions one move from the end: [variant, players, position, clicks, winner text].
const LAST_MOVES = [
  ['losers', 'first', '4k3/8/8/8/8/8/4r2P/4K3 w - - 0 1', ['e1', 'e2'], 'Black win'],
  ['viking', 'first', 'k11/2K9/12/12/12/12/1Q10 w - - 0 1', ['b1', 'b7'], 'White win'],
  ['hnefatafl', 'second', '5s5/11/11/11/11/11/11/11/11/11/1K9 d', ['b1', 'a1'], 'Defenders win'],
  ['loki', 'second', '5s5/11/11/11/11/11/11/11/11/11/1K9 d 3333/3333 -', ['b1', 'a1'], 'Defenders win'],
  ['shakti', 'first', 'kx5/xxW4/7/7/7/7/6K w', ['c6', 'c7'], 'White win'],
];

let failures = 0;
async function test(name, body) {
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
  const page = context.pages()[0] || (await context.newPage());
  page.on('pageerror', (e) => {
    failures += 1;
    console.log(`FAIL page error: ${e}`);
  });
  // Every resource the page asks for exists.
  page.on('response', (r) => {
    if (r.status() === 404) {
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
      const status = await page.textContent('#status');
      assert(status.includes('Game over') && status.includes(winner), `status: ${status}`);
      // The evaluation bar shows the result, never a contradicting guess.
      const label = await page.textContent('#eval-label');
      assert(label.startsWith('Result:') && label.includes(winner.split(' ')[0]), `eval label: ${label}`);
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

  await test('Stop shows in watch mode only', async () => {
    await open(page, { variant: 'shakti', players: 'first' });
    assert(!(await page.isVisible('#stop')), 'Stop shown while playing');
    await page.selectOption('#players', 'watch');
    await page.waitForFunction(() => !document.getElementById('stop').hidden, null, { timeout: 5000 });
    await page.click('#stop');
    await settle(page);
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
    // Variants without SAN show no PGN box.
    await open(page, { variant: 'hnefatafl', players: 'human' });
    assert(!(await page.isVisible('#pgn-box')), 'no PGN box for hnefatafl');
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
