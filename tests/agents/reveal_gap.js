// An external strategy in Node.js: reveal the hidden clue at the first discriminative-gap cell
// (else the first hidden clue of the pool). One JSON answer line per request line; the same
// edits as reveal_gap.py and reveal_gap.sh.
"use strict";
const readline = require("readline");

let pool = [];
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const request = JSON.parse(line);
  if (request.type === "start") {
    pool = request.pool;
    process.stdout.write(JSON.stringify({ reveal: [] }) + "\n");
    return;
  }
  const shown = request.clues;
  const hidden = pool.filter((clue) => !shown.some((id) => same(id, clue.id)));
  const detail = (request.report && request.report.rejectDetail) || {};
  const gap = (detail.discriminativeGap || []).map((item) => item.coord);
  const atGap = hidden.filter((clue) => gap.some((c) => same(c, clue.coords[0])));
  const picks = atGap.concat(hidden).slice(0, 1);
  process.stdout.write(JSON.stringify({ reveal: picks.map((clue) => clue.coords[0]) }) + "\n");
});
