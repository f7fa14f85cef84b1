#!/usr/bin/env bash
# The PCGRL comparison, one command from a clone: train the shipped learner in both observation
# modes at equal steps and seed (one seed gives one policy file, so this rewrites the committed
# files byte for byte), run the experiment's config and judge its hypotheses.
# Usage: bash experiments/pcgrl_comparison.sh [sudoku4|sudoku6] [RUN_DIR]
#   sudoku4 (default): experiments/pcgrl_comparison.toml, run into runs/pcgrl_comparison
#   sudoku6: experiments/pcgrl_comparison_6x6.toml, run into runs/pcgrl_comparison_6x6
set -euo pipefail
cd "$(dirname "$0")/.."
PK=${PUZZLEKIT:-.venv/bin/puzzlekit}
case "${1:-sudoku4}" in
  sudoku4) size=4; config=pcgrl_comparison ;;
  sudoku6) size=6; config=pcgrl_comparison_6x6 ;;
  *) echo "usage: $0 [sudoku4|sudoku6] [RUN_DIR]" >&2; exit 2 ;;
esac
OUT=${2:-runs/$config}
mkdir -p experiments/data/pcgrl
for obs in structured scalar; do
  $PK train sudoku --params "{\"size\": $size}" --obs "$obs" --steps 30000 --seed 0 \
    --out "experiments/data/pcgrl/sudoku$size-$obs.policy.json" --quiet
done
$PK run "experiments/$config.toml" --out "$OUT" --quiet
$PK report "$OUT"
