// `lokizero train --serve` in Debian's chromium, headless, driven by
// playwright-core (tests/web_runs.rs starts a tiny shakti run with the
// lab beside it): the variant menu names the bot's generation and the
// "Bot trained" line counts its games; both move on as the run writes new
// generations, without a reload; the bot of the newest generation plays.
import { chromium } from 'playwright-core';

const BASE = process.env.LAB_URL;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
let failed = false;
const generation = (page) =>
  page.evaluate(() => {
    const m = /generation (\d+)/.exec(document.querySelector('#variant option[value="shakti"]').textContent);
    return m ? Number(m[1]) : -1;
  });
try {
  const page = await browser.newPage();
  await page.goto(`${BASE}/?variant=shakti&players=human`);
  // The first trained generation (generation 0 is the untrained network).
  await page.waitForFunction(() => /generation [1-9]/.test(document.querySelector('#variant option[value="shakti"]')?.textContent ?? ''), null, { timeout: 120000 });
  const first = await generation(page);
  await page.waitForFunction(() => /Bot trained: about \d+/.test(document.querySelector('#trained').textContent), null, { timeout: 20000 });
  const trained = await page.textContent('#trained');
  // Two more generations, seen without a reload.
  await page.waitForFunction((g) => {
    const m = /generation (\d+)/.exec(document.querySelector('#variant option[value="shakti"]').textContent);
    return m && Number(m[1]) >= g + 2;
  }, first, { timeout: 180000 });
  const later = await generation(page);
  const trainedLater = await page.textContent('#trained');
  const games = (t) => Number(/about ([\d,]+)/.exec(t)[1].replace(/,/g, ''));
  if (!(games(trainedLater) > games(trained))) throw new Error(`games did not rise: "${trained}" then "${trainedLater}"`);
  console.log(`ok   the page went from generation ${first} to ${later} without a reload; ${trainedLater.split(' (')[0]}`);
  // The API agrees, and the newest bot plays a move.
  const info = await page.evaluate(async () => (await (await fetch('/api/variants')).json()));
  if (!info.live) throw new Error('/api/variants does not say live');
  const shakti = info.variants.find((v) => v.id === 'shakti');
  if (!(shakti.generation >= later)) throw new Error(`/api/variants says generation ${shakti.generation}`);
  const moved = await page.evaluate(async () => {
    const post = async (path, body) => (await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json();
    const game = await post('/api/games', { variant: 'shakti' });
    return post(`/api/games/${game.id}/bot`, { nodes: 16 });
  });
  if (!moved.bot || !moved.bot.move) throw new Error(`the bot did not move: ${JSON.stringify(moved).slice(0, 300)}`);
  console.log(`ok   the bot of generation ${shakti.generation} plays ${moved.bot.move}`);
  const runs = await page.evaluate(async () => (await (await fetch('/api/runs')).json()));
  if (runs.runs.length !== 1 || !(runs.runs[0].generations >= later)) throw new Error(`/api/runs: ${JSON.stringify(runs)}`);
  console.log(`ok   /runs lists the run with ${runs.runs[0].generations} generations`);
} catch (e) {
  failed = true;
  console.log(`FAIL ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
