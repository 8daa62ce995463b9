"""Tests of the client's base class on messages written by hand (no schedsim)."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

from schedsim_policy import Policy, ProtocolError  # noqa: E402
import easy  # noqa: E402
import fcfs  # noqa: E402


def job(i, procs, requested=100, submit=0):
    return {"id": i, "job": i + 1, "submit": submit, "procs": procs, "requested": requested,
            "user": 1, "group": 1, "queue": 1, "partition": 1}


def pas(n, t, free, queued, submitted=(), ended=()):
    return {"type": "pass", "pass": n, "time": t, "free": free, "capacity": 10, "queued": queued,
            "running": 0, "submitted": list(submitted), "ended": list(ended)}


HELLO = {"type": "hello", "protocol": "schedsim-policy/1", "machine": {"procs": 10}}


class TestClient(unittest.TestCase):

    def test_hello(self):
        p = easy.EASY()
        ans = json.loads(p.handle(HELLO))
        self.assertEqual(ans, {"type": "hello", "protocol": "schedsim-policy/1", "name": "easy",
                               "fields": ["procs", "requested", "submit"]})
        with self.assertRaises(ProtocolError):
            Policy().handle(dict(HELLO, protocol="schedsim-policy/2"))

    def test_fcfs(self):
        p = fcfs.FCFS()
        p.handle(HELLO)
        self.assertEqual(p.handle(pas(1, 0, 10, 3, [job(0, 6), job(1, 6), job(2, 1)])),
                         '{"start":[0],"quiet":{"procs":0,"extra":0}}\n')
        self.assertEqual([j.id for j in p.queue], [1, 2])  # the head waits: so does job 2
        self.assertEqual(p.handle(pas(2, 100, 10, 2, ended=[{"id": 0, "start": 0, "end": 100, "procs": 6, "killed": True}])),
                         '{"start":[1,2]}\n')
        self.assertEqual(p.killed, 1)

    def test_easy_backfills_and_reserves(self):
        p = easy.EASY()
        p.handle(HELLO)
        self.assertEqual(p.handle(pas(1, 0, 10, 1, [job(0, 6, 100)])), '{"start":[0]}\n')
        # The head (8) waits for job 0's end at 100; job 2 ends by then,
        # job 3 would not and needs more than the 2 extra processors; job 4 uses one.
        ans = p.handle(pas(2, 10, 4, 4, [job(1, 8, 50), job(2, 3, 80), job(3, 3, 500), job(4, 1, 500)]))
        self.assertEqual(ans, '{"start":[2,4],"reserve":[{"id":1,"at":100}],"quiet":{"procs":0,"extra":1,"until":100}}\n')
        self.assertEqual([j.id for j in p.queue], [1, 3])
        self.assertEqual([e[1] for e in p.ends], [2, 0, 4])  # by predicted end: 90, 100, 510

    def test_queued_count_checked(self):
        p = fcfs.FCFS()
        p.handle(HELLO)
        with self.assertRaises(ProtocolError):
            p.handle(pas(1, 0, 10, 5, [job(0, 6)]))

    def test_run_loop(self):
        lines = [HELLO, pas(1, 0, 10, 1, [job(0, 4)]), {"type": "end", "time": 100, "passes": 1,
                 "ended": [{"id": 0, "start": 0, "end": 100, "procs": 4, "killed": False}]}]
        with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out:
            inp.write("".join(json.dumps(m) + "\n" for m in lines).encode())
            inp.seek(0)
            p = fcfs.FCFS()
            p.run(inp, out)
            out.seek(0)
            got = out.read().decode().splitlines()
        self.assertEqual(got, ['{"type":"hello","protocol":"schedsim-policy/1","name":"fcfs","fields":["procs","submit"]}',
                               '{"start":[0]}'])  # the queue is empty: no quiet
        self.assertEqual(p.ended, 1)


if __name__ == "__main__":
    unittest.main()
