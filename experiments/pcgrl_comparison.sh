#!/usr/bin/env bash
# The PCGRL comparison, one command from a clone: train the shipped learner in both observation
# modes at equal steps and seed (one seed gives one policy file, so this rewrites the committed
# files byte for byte), run experiments/pcgrl_comparison.toml and judge its hypotheses.
# Usage: bash experiments/pcgrl_comparison.sh [RUN_DIR]   (default runs/pcgrl_comparison)
set -euo pipefail
cd "$(dirname "$0")/.."
PK=${PUZZLEKIT:-.venv/bin/puzzlekit}
OUT=${1:-runs/pcgrl_comparison}
mkdir -p experiments/data/pcgrl
for obs in structured scalar; do
  $PK train sudoku --params '{"size": 4}' --obs "$obs" --steps 30000 --seed 0 \
    --out "experiments/data/pcgrl/sudoku4-$obs.policy.json" --quiet
done
$PK run experiments/pcgrl_comparison.toml --out "$OUT" --quiet
$PK report "$OUT"
