#!/usr/bin/env bash
# 200 puzzles per family with `puzzlekit generate` (adaptive, default clue count, seed 1, the
# family's default filter and independent holdout); prints one Markdown row per family:
# family | params | accepted | holdout rejects | filter calls per accepted puzzle | seconds
cd "$(dirname "$0")/.."
mkdir -p runs/families200
for spec in 'futoshiki {"size":5}' 'futoshiki-adjacent {"size":5}' 'kenken {"size":5}' 'sudoku-killer {"size":6}' 'sudoku-jigsaw {"size":6}' 'latin {"size":5}' 'sudoku {"size":9}' 'skyscrapers {"size":5}' 'starbattle {"size":6,"stars":1}' 'nonogram {"rows":10,"cols":10,"density":50}' 'kakuro {"rows":5,"cols":5,"seed":1}' 'logicgrid {"size":4,"categories":3}' 'owm-tictactoe {}' 'owm-connect {"rows":4,"cols":4,"k":3}' 'owm-nim {"heaps":3,"max":4}'; do
  fam=${spec%% *}; params=${spec#* }
  start=$(date +%s.%N)
  .venv/bin/puzzlekit generate $fam --params "$params" --count 200 --seed 1 --out runs/families200/$fam.jsonl 2>/dev/null
  end=$(date +%s.%N)
  .venv/bin/python - "$fam" "$params" "$start" "$end" <<'PY'
import json, sys
fam, params, s, e = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = [json.loads(l) for l in open(f"runs/families200/{fam}.jsonl")]
acc = [r for r in rows if r["status"] == "accepted"]
rej = sum(1 for r in acc if r["holdoutVerdict"] != "UNIQUE")
calls = sum(r["filterCalls"] for r in rows) / max(1, len(acc))
print(f"| {fam} | {params} | {len(acc)} | {rej} | {calls:.2f} | {e-s:.0f} |", flush=True)
PY
done
