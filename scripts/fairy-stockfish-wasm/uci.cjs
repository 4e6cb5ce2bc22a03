// A UCI engine on stdin/stdout around the npm package
// fairy-stockfish-nnue.wasm (a current largeboards Fairy-Stockfish built to
// WebAssembly), for matches against lokizero in variants the Debian
// package is too old for (viking: docs/rules.md §2).
//
// Two things make the package run under Node 20:
// - `fetch` is hidden before loading it, so emscripten reads
//   stockfish.wasm from disk instead of trying to fetch a URL;
// - the engine's files live in emscripten's in-memory file system, so a
//   `setoption name VariantPath value FILE` is served by copying FILE from
//   the host into the root of that file system and passing that path on.
"use strict";

const fs = require("fs");
const path = require("path");
const readline = require("readline");

globalThis.fetch = undefined;
const Stockfish = require("fairy-stockfish-nnue.wasm/stockfish.js");

const VARIANT_PATH = /^setoption\s+name\s+VariantPath\s+value\s+(.+)$/i;

/// Copy a host file into the root of the engine's file system (the only
/// folder its minified FS surely has); returns the path there.
function mirrorFile(engine, file) {
  const inside = "/" + path.basename(file);
  engine.FS.writeFile(inside, fs.readFileSync(file));
  return inside;
}

async function main() {
  const engine = await Stockfish();
  const input = readline.createInterface({ input: process.stdin });
  for await (const line of input) {
    const command = line.trim();
    if (command === "quit") {
      break;
    }
    const variantPath = VARIANT_PATH.exec(command);
    if (variantPath) {
      const file = variantPath[1].trim();
      try {
        engine.postMessage(`setoption name VariantPath value ${mirrorFile(engine, file)}`);
      } catch (err) {
        // A UCI engine reports problems as info strings, not by exiting.
        console.log(`info string cannot read ${file}: ${err.message}`);
      }
      continue;
    }
    engine.postMessage(command);
  }
  engine.postMessage("quit");
  // The engine's worker threads keep Node alive; nothing is pending once
  // stdin is closed or `quit` was read.
  setTimeout(() => process.exit(0), 200);
}

main().catch((err) => {
  console.error(`fairy-stockfish-wasm: ${err.stack || err}`);
  process.exit(1);
});
