#!/usr/bin/env python3
"""First fit, on the bare protocol: start every waiting job that fits, in queue order."""
import json
import sys

queue, procs = [], {}                       # waiting job ids in order; id -> processors
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":              # schedsim's hello: answer with ours
        print(json.dumps({"type": "hello", "protocol": "schedsim-policy/1", "name": "firstfit"}), flush=True)
        continue
    if msg["type"] == "end":                # the run is over
        break
    for job in msg["submitted"]:            # a pass: what changed since the last one
        queue.append(job["id"])
        procs[job["id"]] = job["procs"]
    free, start = msg["free"], []
    for i in queue:
        if procs[i] <= free:
            start.append(i)
            free -= procs[i]
    queue = [i for i in queue if i not in start]
    print(json.dumps({"start": start}), flush=True)
