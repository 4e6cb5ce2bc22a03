// The training runs page: /api/runs, /api/runs/{name} and
// /api/runs/{name}/games (crates/serve/src/runs.rs), refreshed every few
// seconds so a run in progress shows each new generation and its newest
// self-play games; Replay sets a game on the lab's board (POST /api/games
// with its start and moves) and opens the lab on it.

const REFRESH_MS = 3000;
const COLUMNS = [
  ['generation', 'gen', (v) => v],
  ['games', 'games', (v) => v],
  ['selfplay_positions_total', 'positions', (v) => v],
  ['policy_loss', 'policy loss', (v) => v.toFixed(3)],
  ['value_loss', 'value loss', (v) => v.toFixed(3)],
  ['draw_rate', 'draws', (v) => `${Math.round(v * 100)} %`],
  ['samples_per_second', 'train samples/s', (v) => Math.round(v)],
  ['cpu_seconds_total', 'CPU h', (v) => (v / 3600).toFixed(2)],
  ['elo', 'Elo', (v) => Math.round(v)],
];

const $ = (id) => document.getElementById(id);
let current = new URLSearchParams(location.search).get('run');

async function getJson(path) {
  const res = await fetch(path);
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function fillRuns(runs) {
  const select = $('run');
  const names = runs.map((r) => r.name);
  if (select.options.length !== names.length || [...select.options].some((o, i) => o.value !== names[i])) {
    select.replaceChildren(...runs.map((r) => new Option(`${r.name} (${r.variant ?? '?'})`, r.name)));
  }
  if (!current || !names.includes(current)) current = names[0];
  select.value = current;
}

function fillTable(rows) {
  const table = $('generations');
  table.tHead.replaceChildren(row(COLUMNS.map(([, label]) => label), 'th'));
  const body = [...rows].reverse().map((r) =>
    row(COLUMNS.map(([key, , fmt]) => (r[key] == null ? '' : fmt(r[key]))), 'td'));
  table.tBodies[0].replaceChildren(...body);
}

function row(cells, tag) {
  const tr = document.createElement('tr');
  for (const text of cells) {
    const cell = document.createElement(tag);
    cell.textContent = text;
    tr.append(cell);
  }
  return tr;
}

// One or two series over the generations: Elo with its interval when the
// run evaluates, else the policy and value losses.
function drawCurve(rows) {
  const svg = $('curve');
  const hasElo = rows.some((r) => r.elo != null);
  const series = hasElo
    ? [{ key: 'elo', label: 'Elo', colour: '#2b6cb0' }]
    : [{ key: 'policy_loss', label: 'policy loss', colour: '#2b6cb0' },
       { key: 'value_loss', label: 'value loss', colour: '#c05621' }];
  $('curve-title').textContent = `Learning curve: ${series.map((s) => s.label).join(', ')} by generation`;
  const [w, h, left, bottom, top] = [640, 260, 48, 28, 12];
  const xs = rows.map((r) => r.generation);
  const values = rows.flatMap((r) => series.map((s) => r[s.key])
    .concat(hasElo ? [r.elo_lower, r.elo_upper] : [])).filter((v) => v != null && isFinite(v));
  const parts = [];
  if (xs.length && values.length) {
    const [x0, x1] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
    let [y0, y1] = [Math.min(...values), Math.max(...values)];
    if (y1 - y0 < 1e-9) { y0 -= 1; y1 += 1; }
    const X = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - 8);
    const Y = (y) => top + (1 - (y - y0) / (y1 - y0)) * (h - top - bottom);
    parts.push(`<line x1="${left}" y1="${h - bottom}" x2="${w - 8}" y2="${h - bottom}" stroke="#888"/>`);
    parts.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${h - bottom}" stroke="#888"/>`);
    parts.push(`<text x="${left}" y="${h - 8}" font-size="11">gen ${x0}</text>`);
    parts.push(`<text x="${w - 8}" y="${h - 8}" font-size="11" text-anchor="end">gen ${x1}</text>`);
    parts.push(`<text x="${left - 4}" y="${top + 10}" font-size="11" text-anchor="end">${y1.toFixed(hasElo ? 0 : 2)}</text>`);
    parts.push(`<text x="${left - 4}" y="${h - bottom}" font-size="11" text-anchor="end">${y0.toFixed(hasElo ? 0 : 2)}</text>`);
    for (const s of series) {
      const pts = rows.filter((r) => r[s.key] != null);
      if (hasElo) {
        for (const r of pts) {
          if (r.elo_lower != null && r.elo_upper != null) {
            parts.push(`<line x1="${X(r.generation)}" y1="${Y(r.elo_lower)}" x2="${X(r.generation)}" y2="${Y(r.elo_upper)}" stroke="${s.colour}" stroke-opacity="0.35"/>`);
          }
        }
      }
      const path = pts.map((r) => `${X(r.generation).toFixed(1)},${Y(r[s.key]).toFixed(1)}`).join(' ');
      parts.push(`<polyline class="series" data-key="${s.key}" fill="none" stroke="${s.colour}" stroke-width="2" points="${path}"/>`);
      for (const r of pts) {
        parts.push(`<circle class="point" data-key="${s.key}" cx="${X(r.generation).toFixed(1)}" cy="${Y(r[s.key]).toFixed(1)}" r="2.5" fill="${s.colour}"/>`);
      }
    }
    series.forEach((s, i) => parts.push(
      `<text x="${left + 8 + i * 110}" y="${top + 10}" font-size="12" fill="${s.colour}">${s.label}</text>`));
  }
  svg.innerHTML = parts.join('');
}

// The newest self-play games, each with a Replay button; redrawn only
// when the list changes (a button being clicked stays put).
let shownGames = '';
function fillGames(variant, games) {
  const key = games.map((g) => `${g.generation}/${g.chunk}/${g.index}`).join(' ');
  if (key === shownGames) return;
  shownGames = key;
  const body = games.map((g) => {
    const result = g.winner ? `${g.winner} won` : g.ply_capped ? 'draw (move cap)' : 'draw';
    const tr = row([g.generation, `${g.index + 1}`, g.moves.length, result], 'td');
    tr.title = `game ${g.index + 1} of ${g.chunk}`;
    const cell = document.createElement('td');
    const button = document.createElement('button');
    button.textContent = 'Replay';
    button.className = 'replay';
    button.addEventListener('click', () => replay(variant, g, button));
    cell.append(button);
    tr.append(cell);
    return tr;
  });
  $('games').tBodies[0].replaceChildren(...body);
}

async function replay(variant, g, button) {
  button.disabled = true;
  try {
    const res = await fetch('/api/games', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ variant, position: g.start, moves: g.moves }),
    });
    const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
    location.href = `/?variant=${encodeURIComponent(variant)}&players=human&game=${encodeURIComponent(data.id)}`;
  } catch (e) {
    $('status').textContent = `Cannot replay the game: ${e.message}`;
    button.disabled = false;
  }
}

async function refresh() {
  try {
    const { runs } = await getJson('/api/runs');
    if (!runs.length) {
      $('status').textContent = 'No runs yet: the runs folder has no folder with a metrics.jsonl.';
      return;
    }
    fillRuns(runs);
    const run = await getJson(`/api/runs/${encodeURIComponent(current)}`);
    const last = run.last;
    $('status').textContent = `${run.name}: ${run.variant ?? 'variant unknown'}, ${run.generations} generations` +
      (last && last.cpu_seconds_total != null ? `, ${(last.cpu_seconds_total / 3600).toFixed(2)} CPU-hours` : '');
    document.body.dataset.generations = String(run.generations);
    fillTable(run.rows);
    drawCurve(run.rows);
  } catch (e) {
    $('status').textContent = `Cannot read the runs: ${e.message}`;
    return;
  }
  try {
    const played = await getJson(`/api/runs/${encodeURIComponent(current)}/games`);
    fillGames(played.variant, played.games);
    $('games-note').textContent = played.skipped.length
      ? `Skipped (unreadable): ${played.skipped.join('; ')}`
      : played.games.length ? '' : 'No self-play games yet.';
  } catch (e) {
    // Never leave another run's games up.
    fillGames('', []);
    $('games-note').textContent = `Cannot read this run's self-play games: ${e.message}`;
  }
}

$('run').addEventListener('change', () => {
  current = $('run').value;
  history.replaceState(null, '', `?run=${encodeURIComponent(current)}`);
  refresh();
});
refresh();
setInterval(refresh, REFRESH_MS);
