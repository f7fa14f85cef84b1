#!/usr/bin/env bash
# The seed's question, one command from a clone: train the policy arm in the generator
# environment on the planted-deadly sampler (one seed gives one policy file, so this rewrites the
# committed file byte for byte), run experiments/speed_or_pattern.toml and judge its hypotheses.
# Usage: bash experiments/speed_or_pattern.sh [RUN_DIR] (default runs/speed_or_pattern)
set -euo pipefail
cd "$(dirname "$0")/.."
PK=${PUZZLEKIT:-.venv/bin/puzzlekit}
OUT=${1:-runs/speed_or_pattern}
mkdir -p experiments/data/speed_or_pattern
$PK train sudoku --params '{"size": 6}' --sampler planted-deadly --obs structured \
  --steps 30000 --seed 0 --out experiments/data/speed_or_pattern/sudoku6-planted.policy.json --quiet
$PK run experiments/speed_or_pattern.toml --out "$OUT" --quiet  # writes report/report.md too
