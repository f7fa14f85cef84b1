#!/usr/bin/env bash
# The generation figures of docs/logicgrid_toolcall.md: `puzzlekit generate`, seed 0, 200 puzzles
# per run unless COUNT says otherwise; one Markdown row per run:
# run | accepted | holdout rejects | filter calls per accepted puzzle | clues | seconds
# Usage: experiments/logicgrid_toolcall.sh [run ...]  (default: every run below); PY=python to
# run another interpreter (from another checkout: PY=/path/to/venv/bin/python, run from there)
cd "$(dirname "$0")/.."
mkdir -p runs/logicgrid_toolcall
COUNT=${COUNT:-200}
PY=${PY:-.venv/bin/python}
P43='{"size":4,"categories":3}'
P54='{"size":5,"categories":4}'
S='{"tool":"shipping-rate","expectedVerdict":"mid","fixedInput":{"note":""}}'
LG=(--filter sat --holdout enumerative)
TC=(--filter oracle --holdout oracle-plain)

run() {
  local name=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$PY" -m puzzlekit generate "$@" --count "$COUNT" --out "runs/logicgrid_toolcall/$name.jsonl" 2>/dev/null
  end=$(date +%s.%N)
  "$PY" - "$name" "$start" "$end" <<'PY'
import json, sys
name, s, e = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rows = [json.loads(line) for line in open(f"runs/logicgrid_toolcall/{name}.jsonl")]
acc = [r for r in rows if r["status"] == "accepted"]
rej = sum(1 for r in acc if r["holdoutVerdict"] != "UNIQUE")
calls = sum(r["filterCalls"] for r in rows) / max(1, len(acc))
clues = sum(r["clueCount"] for r in acc) / max(1, len(acc))
print(f"| {name} | {len(acc)} | {rej} | {calls:.2f} | {clues:.2f} | {e - s:.1f} |", flush=True)
PY
}

runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(lg43-adaptive lg54-adaptive lg43-blind8 lg43-blind7 lg43-blind6 lg43-blind5
  tc-adaptive tc-blind3)
for r in "${runs[@]}"; do
  case $r in
    lg43-adaptive) run "$r" logicgrid --params "$P43" "${LG[@]}" ;;
    lg54-adaptive) run "$r" logicgrid --params "$P54" "${LG[@]}" ;;
    lg43-blind*) run "$r" logicgrid --params "$P43" --strategy blind --clues "${r#lg43-blind}" "${LG[@]}" ;;
    tc-adaptive) run "$r" toolcall --params "$S" "${TC[@]}" ;;
    tc-blind3) run "$r" toolcall --params "$S" --strategy blind --clues 3 "${TC[@]}" ;;
    *) echo "unknown run $r" >&2 ;;
  esac
done
