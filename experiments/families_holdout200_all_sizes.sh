#!/usr/bin/env bash
# 200 puzzles for every listed schema of the grid families (`puzzlekit generate`,
# adaptive, default clue count, seed 1, the family's default filter and independent holdout);
# one Markdown row per schema: family | params | accepted | holdout rejects | calls | seconds
cd "$(dirname "$0")/.."
mkdir -p runs/families200all
.venv/bin/python - <<'PY' | while IFS=$'\t' read -r fam params tag; do
from puzzlekit.core.registry import registered_schemas
import json
grid = {"futoshiki", "kenken", "sudoku-killer", "sudoku-jigsaw", "skyscrapers", "starbattle",
        "nonogram", "kakuro"}
for i, row in enumerate(registered_schemas()):
    if row["family"] in grid:
        print(row["family"], json.dumps(row["params"], separators=(",", ":")), i, sep="\t")
PY
  out="runs/families200all/$fam-$tag.jsonl"
  start=$(date +%s.%N)
  .venv/bin/puzzlekit generate "$fam" --params "$params" --count 200 --seed 1 --out "$out" 2>/dev/null
  end=$(date +%s.%N)
  .venv/bin/python - "$fam" "$params" "$out" "$start" "$end" <<'PY'
import json, sys
fam, params, out, s, e = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
rows = [json.loads(line) for line in open(out)]
acc = [r for r in rows if r["status"] == "accepted"]
rej = sum(1 for r in acc if r["holdoutVerdict"] != "UNIQUE")
calls = sum(r["filterCalls"] for r in rows) / max(1, len(acc))
print(f"| {fam} | `{params}` | {len(acc)} | {rej} | {calls:.2f} | {e - s:.0f} |", flush=True)
PY
done
