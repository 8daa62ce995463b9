"""Tests of the client's base class on messages written by hand (no schedsim)."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

from schedsim_policy import JOB_FIELDS, Policy, ProtocolError  # noqa: E402
import easy  # noqa: E402
import fcfs  # noqa: E402


def job(i, procs, requested=100, submit=0):
    return {"id": i, "job": i + 1, "submit": submit, "procs": procs, "requested": requested,
            "user": 1, "group": 1, "queue": 1, "partition": 1}


def pas(n, t, free, queued, submitted=(), ended=()):
    return {"type": "pass", "pass": n, "time": t, "free": free, "capacity": 10, "queued": queued,
            "running": 0, "submitted": list(submitted), "ended": list(ended)}


HELLO = {"type": "hello", "protocol": "schedsim-policy/1", "machine": {"procs": 10}}


def wire(p, msg):
    """msg as schedsim sends it to p: with rows if p asked for them (the
    fields it asked for, in order; the test's objects have them all)."""
    if not p.rows or msg["type"] == "hello":
        return msg
    fields = p.handle(HELLO) and json.loads(p.handle(HELLO)).get("fields", JOB_FIELDS)
    msg = dict(msg)
    if "submitted" in msg:
        msg["submitted"] = [[d["id"]] + [d[f] for f in fields] for d in msg["submitted"]]
    msg["ended"] = [[d["id"], d["start"], d["end"], d["procs"], d["killed"]] for d in msg["ended"]]
    return msg


def modes(cls):
    """A policy of class cls in each mode: jobs as rows, and as objects."""
    rows = cls()
    objects = cls()
    objects.rows = False
    return [rows, objects]


class TestClient(unittest.TestCase):

    def test_hello(self):
        rows, objects = modes(easy.EASY)
        self.assertEqual(json.loads(rows.handle(HELLO)),
                         {"type": "hello", "protocol": "schedsim-policy/1", "name": "easy",
                          "fields": ["job", "submit", "procs", "requested"], "rows": True})
        self.assertEqual(json.loads(objects.handle(HELLO)),
                         {"type": "hello", "protocol": "schedsim-policy/1", "name": "easy",
                          "fields": ["submit", "procs", "requested"]})
        with self.assertRaises(ProtocolError):
            Policy().handle(dict(HELLO, protocol="schedsim-policy/2"))
        bad = Policy()
        bad.fields = ("procs", "size")
        with self.assertRaises(ValueError):
            bad.handle(HELLO)

    def test_fcfs(self):
        for p in modes(fcfs.FCFS):
            with self.subTest(rows=p.rows):
                p.handle(HELLO)
                self.assertEqual(p.handle(wire(p, pas(1, 0, 10, 3, [job(0, 6), job(1, 6), job(2, 1)]))),
                                 '{"start":[0],"quiet":{"procs":0,"extra":0}}\n')
                self.assertEqual([j.id for j in p.queue], [1, 2])  # the head waits: so does job 2
                self.assertEqual(p.queue[0].submit, 0)
                self.assertEqual(p.queue[0].user, 1 if not p.rows else -1)  # not asked for: not sent as a row
                ended = [{"id": 0, "start": 0, "end": 100, "procs": 6, "killed": True}]
                self.assertEqual(p.handle(wire(p, pas(2, 100, 10, 2, ended=ended))), '{"start":[1,2]}\n')
                self.assertEqual(p.killed, 1)

    def test_easy_backfills_and_reserves(self):
        for p in modes(easy.EASY):
            with self.subTest(rows=p.rows):
                p.handle(HELLO)
                self.assertEqual(p.handle(wire(p, pas(1, 0, 10, 1, [job(0, 6, 100)]))), '{"start":[0]}\n')
                # The head (8) waits for job 0's end at 100; job 2 ends by then,
                # job 3 would not and needs more than the 2 extra processors; job 4 uses one.
                ans = p.handle(wire(p, pas(2, 10, 4, 4, [job(1, 8, 50), job(2, 3, 80), job(3, 3, 500), job(4, 1, 500)])))
                self.assertEqual(ans, '{"start":[2,4],"reserve":[{"id":1,"at":100}],"quiet":{"procs":0,"extra":1,"until":100}}\n')
                self.assertEqual([j.id for j in p.queue], [1, 3])
                self.assertEqual([e[1] for e in p.ends], [2, 0, 4])  # by predicted end: 90, 100, 510

    def test_easy_shadow(self):
        # Jobs ending at the shadow time all count towards the extra
        # processors; a head that waits for a job without a requested time
        # has no shadow time, and nothing is backfilled.
        p = easy.EASY()
        p.handle(HELLO)
        p.handle(wire(p, pas(1, 0, 10, 3, [job(0, 4, 100), job(1, 4, 100), job(2, 2, 0)])))
        self.assertEqual(p.shadow(4), (100, 4))  # both jobs end at 100
        self.assertEqual(p.shadow(8), (100, 0))
        self.assertEqual(p.shadow(9), (None, 0))  # job 2 has no requested time
        self.assertEqual(p.shadow(0), (0, 0))  # already free

    def test_queued_count_checked(self):
        for p in modes(fcfs.FCFS):
            p.handle(HELLO)
            with self.assertRaises(ProtocolError):
                p.handle(wire(p, pas(1, 0, 10, 5, [job(0, 6)])))

    def test_start_checked(self):
        p = fcfs.FCFS()
        p.handle(HELLO)
        p.handle(wire(p, pas(1, 0, 10, 2, [job(0, 6), job(1, 6)])))
        with self.assertRaisesRegex(ValueError, "job 0 is not queued"):
            p.start(p.running[0])
        with self.assertRaisesRegex(ValueError, "job 1 needs 6 processors, 4 are free"):
            p.start(p.queue[0])

    def test_run_loop(self):
        for rows in (True, False):
            with self.subTest(rows=rows):
                p = fcfs.FCFS()
                p.rows = rows
                lines = [HELLO, pas(1, 0, 10, 1, [job(0, 4)]), {"type": "end", "time": 100, "passes": 1,
                         "ended": [{"id": 0, "start": 0, "end": 100, "procs": 4, "killed": False}]}]
                with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out:
                    inp.write("".join(json.dumps(wire(p, m)) + "\n" for m in lines).encode())
                    inp.seek(0)
                    p.run(inp, out)
                    out.seek(0)
                    got = out.read().decode().splitlines()
                hello = ('{"type":"hello","protocol":"schedsim-policy/1","name":"fcfs","fields":["job","submit","procs"],"rows":true}' if rows
                         else '{"type":"hello","protocol":"schedsim-policy/1","name":"fcfs","fields":["submit","procs"]}')
                self.assertEqual(got, [hello, '{"start":[0]}'])  # the queue is empty: no quiet
                self.assertEqual(p.ended, 1)

    def test_node_events(self):
        """A run with node events: the client asks for them, hands each to
        on_node_event, and the running jobs' back follows the drains, which
        EASY's shadow then counts; a requeued job is queued again."""
        hello = {"type": "hello", "protocol": "schedsim-policy/1", "machine": {"procs": 10, "node_events": True}}

        class Seen(easy.EASY):
            def __init__(self):
                super().__init__()
                self.events = []

            def on_node_event(self, event):
                self.events.append(event["state"])

        p = Seen()
        p.rows = False
        self.assertTrue(json.loads(p.handle(hello))["node_events"])
        self.assertNotIn("node_events", json.loads(easy.EASY().handle(HELLO)))
        self.assertEqual(p.handle(pas(1, 0, 10, 2, [job(0, 6), job(1, 4, requested=200)])), '{"start":[0,1]}\n')
        # Job 0's nodes drain: it gives back 2 of its 6 processors.
        msg = pas(2, 10, 0, 1, [job(2, 5, submit=10)])
        msg["capacity"] = 6
        msg["node_events"] = [{"time": 10, "state": "drain", "nodes": [[0, 3]], "reason": ""}]
        msg["back"] = [[0, 2]]
        ans = json.loads(p.handle(msg))
        self.assertEqual(p.events, ["drain"])
        self.assertEqual(p.running[0].back, 2)
        self.assertEqual(p.ends, [(100, 0, 2), (200, 1, 4)])
        # Job 0's end gives back 2 processors only: the head's 5 are free
        # at job 1's end, 200 (not 100, as without the drain).
        self.assertEqual(ans["reserve"], [{"id": 2, "at": 200}])
        # A DOWN stops job 1, requeued: it ends and comes again.
        msg = pas(3, 20, 0, 2, [job(1, 4)], [{"id": 1, "start": 0, "end": 20, "procs": 4, "killed": False}])
        msg["node_events"] = [{"time": 20, "state": "down", "nodes": [[6, 9]], "reason": "x", "stopped": [1], "requeued": True}]
        p.handle(msg)
        self.assertEqual([j.id for j in p.queue], [1, 2])
        self.assertEqual(list(p.running), [0])
        self.assertEqual(p.ends, [(100, 0, 2)])


if __name__ == "__main__":
    unittest.main()
