// The training runs page (/runs) in Debian's chromium, headless, driven by
// playwright-core: tests/web_runs.rs starts `lokizero serve --runs DIR`
// on a real run of EXPECT generations, opens the page, checks the table
// and the curve, then asks the Rust side (a file TRAIN_MORE) to train one
// more generation and waits for the page to show it without a reload;
// last it replays the newest self-play game on the lab's board.
import { chromium } from 'playwright-core';
import { writeFileSync, existsSync } from 'node:fs';

const BASE = process.env.LAB_URL;
const EXPECT = Number(process.env.EXPECT);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(`${BASE}/runs`);
  await page.waitForFunction((n) => document.body.dataset.generations === String(n), EXPECT, { timeout: 20000 });
  const rows = await page.locator('#generations tbody tr').count();
  if (rows !== EXPECT) throw new Error(`table has ${rows} rows, expected ${EXPECT}`);
  const points = await page.locator('#curve circle.point').count();
  if (points < EXPECT) throw new Error(`curve has ${points} points, expected at least ${EXPECT}`);
  const status = await page.locator('#status').textContent();
  if (!status.includes(`${EXPECT} generations`) || !status.includes('shakti')) throw new Error(`status: ${status}`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
  if (wide) throw new Error('the runs page scrolls sideways at 390 px');
  console.log(`ok   runs page shows ${rows} generations and ${points} curve points`);

  // One more generation, written while the page stays open.
  writeFileSync(process.env.TRAIN_MORE, 'go');
  await page.waitForFunction((n) => document.body.dataset.generations === String(n), EXPECT + 1, { timeout: 240000 });
  const after = await page.locator('#generations tbody tr').count();
  if (after !== EXPECT + 1) throw new Error(`after training: ${after} rows`);
  console.log(`ok   the page shows generation ${EXPECT + 1} without a reload`);

  // The newest self-play game, replayed on the lab's board.
  await page.waitForSelector('#games tbody tr button.replay', { timeout: 20000 });
  const listedGames = await page.locator('#games tbody tr').count();
  const cells = await page.locator('#games tbody tr').first().locator('td').allTextContents();
  if (Number(cells[0]) !== EXPECT + 1) throw new Error(`the newest game is from generation ${cells[0]}`);
  const plies = Number(cells[2]);
  await page.locator('#games tbody tr button.replay').first().click();
  await page.waitForURL(/[?&]game=/, { timeout: 20000 });
  await page.waitForFunction((n) => window.lab && window.lab.game && window.lab.game.moves.length === n, plies, { timeout: 20000 });
  const listedMoves = await page.locator('#moves li:not(.placeholder)').count();
  if (listedMoves !== plies) throw new Error(`the lab lists ${listedMoves} moves of ${plies}`);
  const over = await page.evaluate(() => window.lab.game.outcome != null);
  if (cells[3].endsWith('won') && !over) throw new Error(`a won game (${cells[3]}) is not over on the board`);
  console.log(`ok   ${listedGames} self-play games listed; the newest (${plies} moves, ${cells[3]}) replays on the board`);

  const missing = await page.goto(`${BASE}/api/runs/nope`);
  if (missing.status() !== 404) throw new Error(`unknown run: HTTP ${missing.status()}`);
  console.log('ok   an unknown run is a 404');
} catch (e) {
  failed = true;
  console.log(`FAIL ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
