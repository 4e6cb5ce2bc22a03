// The JSON API of the web lab (README "Web lab", /api/openapi.json).
// Every failure is an Error whose message is the server's `error` text.

async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data;
  try {
    data = await res.json();
  } catch {
    data = { error: `HTTP ${res.status}` };
  }
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

export const variants = () => call('GET', '/api/variants');
/// A new game of `variant`: from `record`, `{pgn}` (chess variants) or
/// `{position, moves}` (any variant: the start and its move tokens), else
/// from `position` or the variant's start.
export const newGame = (variant, position, record) =>
  call('POST', '/api/games', record ? { variant, ...record } : position ? { variant, position } : { variant });
export const getGame = (id) => call('GET', `/api/games/${id}`);
export const gameAt = (id, ply) => call('GET', `/api/games/${id}/plies/${ply}`);
export const playMove = (id, move) => call('POST', `/api/games/${id}/moves`, { move });
export const undo = (id, plies) => call('POST', `/api/games/${id}/undo`, { plies });
export const botMove = (id, request) => call('POST', `/api/games/${id}/bot`, request);
export const analyse = (request) => call('POST', '/api/analyse', request);
