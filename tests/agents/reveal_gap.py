"""An external strategy in Python: reveal the hidden clue at a discriminative-gap cell
(the first in pool order; else the first hidden clue). The same edits as reveal_gap.sh."""

import json
import sys

pool = []
for line in sys.stdin:
    req = json.loads(line)
    if req["type"] == "start":
        pool = req["pool"]
        print(json.dumps({"reveal": []}), flush=True)
        continue
    shown = set(req["clues"])
    detail = req["report"].get("rejectDetail") or {}
    cells = [tuple(g["coord"]) for g in detail.get("discriminativeGap", [])]
    hidden = [c for c in pool if c["id"] not in shown]
    pick = next((c for c in hidden if tuple(c["coords"][0]) in cells), None)
    pick = pick or (hidden[0] if hidden else None)
    print(json.dumps({"reveal": [pick["coords"][0]] if pick else []}), flush=True)
