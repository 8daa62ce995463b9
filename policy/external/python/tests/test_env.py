"""Tests of the gym-style environment, on a small trace.

They need a schedsim executable: $SCHEDSIM (the Go test TestPythonEnv in
cmd/schedsim sets it), else schedsim on PATH. Run them with

    SCHEDSIM=/path/to/schedsim python3 -m unittest discover -s policy/external/python/tests
"""

import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedsim_policy import env as envmod  # noqa: E402
from schedsim_policy.env import WAIT, SchedulingEnv  # noqa: E402

SCHEDSIM = os.environ.get("SCHEDSIM") or shutil.which("schedsim")
ARGS = ["--max-jobs", "60"]  # the embedded sample trace's first 60 jobs


def random_agent(env, obs):
    return env.action_space.sample()


def greedy_agent(env, obs):
    """Start the queue's head when it fits, else wait: FCFS."""
    if obs["queue"] and obs["queue"][0]["fits"]:
        return 0
    return WAIT


def episode(agent, seed=1, reward="slowdown"):
    """Run one episode; return the observations, rewards and infos."""
    env = SchedulingEnv(schedsim=SCHEDSIM, reward=reward, args=ARGS)
    try:
        obs, info = env.reset(seed=seed)
        steps = [(obs, 0.0, info)]
        done = False
        while not done:
            obs, r, done, truncated, info = env.step(agent(env, obs))
            assert not truncated
            steps.append((obs, r, info))
        return steps
    finally:
        env.close()


def schedsim_jobs(*args):
    """The jobs.csv rows of a schedsim run on the same trace."""
    out = tempfile.mkdtemp()
    try:
        subprocess.run([SCHEDSIM, "run", "--quiet", "--progress", "never", "--plots=false", "--out", out] + ARGS + list(args),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(out, "jobs.csv")) as f:
            return list(csv.DictReader(f))
    finally:
        shutil.rmtree(out)


@unittest.skipIf(not SCHEDSIM, "no schedsim executable: set SCHEDSIM")
class TestEnv(unittest.TestCase):

    def test_random_agent_deterministic(self):
        a = episode(random_agent, seed=7)
        b = episode(random_agent, seed=7)
        self.assertEqual(a, b)  # same seed: the same episode
        c = episode(random_agent, seed=8)
        self.assertNotEqual([s[0] for s in a], [s[0] for s in c])
        self.assertEqual(len(a[-1][0]["queue"]), 0)  # every job ran

    def test_observations(self):
        for agent in (random_agent, greedy_agent):
            steps = episode(agent, seed=3)
            last = -1
            for obs, r, info in steps[:-1]:
                self.assertGreaterEqual(obs["time"], last)
                last = obs["time"]
                self.assertEqual(obs["free"] + sum(j["procs"] for j in obs["running"]), obs["capacity"])
                self.assertTrue(obs["queue"], "a step with nothing waiting")
                self.assertTrue(any(j["fits"] for j in obs["queue"]), "a step where no job fits")
                for j in obs["queue"]:
                    self.assertEqual(j["fits"], j["procs"] <= obs["free"])
                    self.assertGreaterEqual(j["wait"], 0)
                self.assertEqual(info["action_mask"], [j["fits"] for j in obs["queue"]])
            lengths = {len(obs["queue"]) for obs, _, _ in steps}
            self.assertGreater(len(lengths), 2, "the queue's length never varies")

    def test_greedy_is_fcfs(self):
        # The greedy agent is FCFS: its episode's returns are the sums of
        # schedsim's own FCFS run.
        rows = schedsim_jobs("--backfill", "off")
        bsld = sum(max(1.0, float(r["turnaround_time"]) / max(float(r["execution_time"]), 10)) for r in rows)
        wait = sum(float(r["waiting_time"]) for r in rows) / 3600
        cap = 128
        used = sum(float(r["requested_number_of_resources"]) * float(r["execution_time"]) for r in rows) / cap / 3600
        for reward, want in (("slowdown", -bsld), ("wait", -wait), ("utilisation", used)):
            got = sum(r for _, r, _ in episode(greedy_agent, reward=reward))
            self.assertAlmostEqual(got, want, places=6, msg=reward)

    def test_invalid_action(self):
        env = SchedulingEnv(schedsim=SCHEDSIM, args=ARGS)
        try:
            obs, info = env.reset(seed=1)
            obs, r, done, _, info = env.step(len(obs["queue"]) + 5)
            self.assertTrue(info["invalid_action"])
            with self.assertRaises(ValueError):
                SchedulingEnv(schedsim=SCHEDSIM, reward="nope")
        finally:
            env.close()

    def test_gymnasium(self):
        if envmod.gymnasium is None:
            self.assertIs(SchedulingEnv.__mro__[1], object)
        else:
            self.assertIn("schedsim/Scheduling-v0", envmod.gymnasium.registry)


if __name__ == "__main__":
    unittest.main()
