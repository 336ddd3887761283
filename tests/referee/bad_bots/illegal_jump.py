# verdict: illegal_move
# protocol: jsonl
import json
import sys

for line in sys.stdin:
    if json.loads(line)["type"] == "turn":
        print(json.dumps({"move": {"heading": "n", "jump": True}}), flush=True)
