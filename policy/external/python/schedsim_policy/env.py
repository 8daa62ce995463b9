"""A gym-style environment: an agent schedules a trace replayed by schedsim.

How control is inverted: the environment starts

    schedsim run --trace TRACE --policy-exec - --quiet ...

as a subprocess. With --policy-exec -, schedsim speaks the external policy
protocol (schedsim-policy/1) over its own standard input and output, so
the environment is the policy process: it reads each pass message, hands
the agent an observation, and writes the answer once the agent has made
its decisions for that instant. No relay, socket or thread is needed.

One step is one decision at the current instant:

  * an index into observation["queue"]: start that job now (it must fit
    the free processors; observation["queue"][i]["fits"] says which do);
  * WAIT (-1): start nothing more now; the simulation moves on to the
    next instant where a waiting job fits the free processors.

While jobs still fit after a start, the next step is at the same instant;
when none does, the environment moves on by itself. An invalid action
(out of range, or a job that does not fit) counts as WAIT and is
reported in info["invalid_action"]. Waiting while nothing runs asks
schedsim for a pass idle_wake seconds later (default 60), so that an
agent that waits cannot strand the queue.

The observation is a dict of the whole state, of variable length: time,
free, capacity, queue (every waiting job, in submission order: id,
procs, requested, wait, user, fits) and running (every running job: id,
procs, start, requested). The reward is configurable:

  * "slowdown" (default): minus the bounded slowdown (tau = 10 s) of
    every job that ended since the previous step; an episode's return is
    minus the sum of the jobs' bounded slowdowns;
  * "wait": minus the waiting time, in hours, that the queued jobs
    accrued since the previous step; the return is minus the total wait;
  * "utilisation": the busy fraction of the machine times the hours
    since the previous step; the return is the machine-hours used over
    the capacity.

The environment is deterministic: schedsim is, and the environment's
only randomness is rng, a random.Random seeded by reset(seed=...), which
action_space.sample() uses. Same trace, same seed, same agent: the same
episode, observation for observation.

With Gymnasium installed the environment registers as
"schedsim/Scheduling-v0" and subclasses gymnasium.Env; without it, it
works the same (the standard library only).
"""

import os
import random
import shutil
import subprocess
import tempfile

from .client import FOREVER, PROTOCOL, Policy, ProtocolError

try:  # optional
    import gymnasium
except ImportError:  # pragma: no cover - depends on the machine
    gymnasium = None

import json

WAIT = -1
REWARDS = ("slowdown", "wait", "utilisation")
TAU = 10


class _State(Policy):
    """The job and machine state, kept by the client's base class."""

    name = "gym"
    rows = False  # the environment's hello asks for objects, which info["ended"] shows


class ActionSpace:
    """The actions valid now: the index of a waiting job that fits, or WAIT."""

    def __init__(self, env):
        self._env = env

    def valid(self):
        """The valid actions now, WAIT last."""
        st = self._env._state
        return [i for i, j in enumerate(self._env._waiting()) if j.procs <= st.free] + [WAIT]

    def sample(self):
        """A valid action drawn with the environment's rng."""
        return self._env.rng.choice(self.valid())

    def contains(self, a):
        return a in self.valid()


_Base = gymnasium.Env if gymnasium is not None else object


class SchedulingEnv(_Base):
    """A trace replayed by schedsim, scheduled by the agent (see the module)."""

    metadata = {"render_modes": []}

    def __init__(self, trace=None, schedsim=None, reward="slowdown", args=(), idle_wake=60):
        if reward not in REWARDS:
            raise ValueError("reward %r: want one of %s" % (reward, ", ".join(REWARDS)))
        self.trace = trace
        self.schedsim = schedsim or os.environ.get("SCHEDSIM") or shutil.which("schedsim") or "schedsim"
        self.reward_kind = reward
        self.args = list(args)
        self.idle_wake = idle_wake
        self.rng = random.Random()
        self.action_space = ActionSpace(self)
        self._proc = None
        self._state = None
        self._stderr = None

    # The gym interface. ---------------------------------------------------

    def reset(self, trace=None, seed=None, options=None):
        """Start an episode on trace (default: the one given before, else
        schedsim's embedded sample); options["args"] adds schedsim run
        options (e.g. ["--max-jobs", "200"]). Returns (observation, info)."""
        self.close()
        if trace is not None:
            self.trace = trace
        self.rng = random.Random(seed)
        args = [self.schedsim, "run", "--policy-exec", "-", "--quiet", "--progress", "never"]
        if self.trace:
            args += ["--trace", self.trace]
        args += self.args + list((options or {}).get("args", ()))
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        self._state = _State()
        self._done = False
        self._busy_since = 0
        self._last = None
        self._pending_reward = 0.0
        hello = self._read()
        if hello is None or hello.get("type") != "hello":
            raise ProtocolError("schedsim did not say hello: %s" % self._errors())
        if hello.get("protocol") != PROTOCOL:
            raise ProtocolError("schedsim speaks %r, this environment %r" % (hello.get("protocol"), PROTOCOL))
        self._state.handle(hello)
        self._write('{"type":"hello","protocol":"%s","name":"gym"}\n' % PROTOCOL)
        self._next()
        return self._observation(), self._info(False)

    def step(self, action):
        """Apply one decision; returns (observation, reward, terminated,
        truncated, info), Gymnasium's five values (done = terminated)."""
        if self._done:
            raise RuntimeError("step after the end of the episode: call reset")
        st = self._state
        invalid = False
        if action is None:
            action = WAIT
        waiting = self._waiting()
        if action != WAIT:
            if isinstance(action, int) and 0 <= action < len(waiting) and waiting[action].procs <= st.free:
                st.start(waiting[action])
            else:
                invalid = True
                action = WAIT
        if action == WAIT or not any(j.procs <= st.free for j in self._waiting()):
            if action == WAIT and not st.running:
                st.wake_at(st.now + self.idle_wake)
            self._write(st._answer())
            self._next()
        reward, self._pending_reward = self._pending_reward, 0.0
        return self._observation(), reward, self._done, False, self._info(invalid)

    def close(self):
        """Stop the episode's schedsim, if it still runs."""
        if getattr(self, "_proc", None) is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            for f in (self._proc.stdin, self._proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self._proc = None
        if getattr(self, "_stderr", None) is not None:
            self._stderr.close()
            self._stderr = None

    # Protocol and rewards. ------------------------------------------------

    def _read(self):
        line = self._proc.stdout.readline()
        if not line:
            return None
        return json.loads(line)

    def _write(self, s):
        self._proc.stdin.write(s.encode())
        self._proc.stdin.flush()

    def _errors(self):
        self._proc.wait()
        self._stderr.seek(0)
        return "exit status %s: %s" % (self._proc.returncode, self._stderr.read().decode(errors="replace").strip())

    def _next(self):
        """Read the next pass (applying it to the state and the reward), or
        the end."""
        st = self._state
        msg = self._read()
        if msg is None:
            raise ProtocolError("schedsim stopped: %s" % self._errors())
        if msg["type"] == "end":
            self._done = True
            self._rewards(msg, msg["time"], [])
            if self._proc.wait() != 0:
                raise ProtocolError("schedsim failed: %s" % self._errors())
            return
        if msg["type"] != "pass":
            raise ProtocolError("unexpected message %r" % msg["type"])
        self._rewards(msg, msg["time"], msg["submitted"])
        self._state._update(msg)
        self._last = msg

    def _rewards(self, msg, t1, submitted):
        """Add the reward of what happened up to t1 (msg's ends, and the
        jobs submitted since the last step) to the pending reward."""
        st = self._state
        t0 = st.now if self._last is not None else t1
        kind = self.reward_kind
        if kind == "slowdown":
            for d in msg["ended"]:
                run = d["end"] - d["start"]
                submit = st.running[d["id"]].submit
                self._pending_reward -= max(1.0, (d["end"] - submit) / max(run, TAU))
        elif kind == "wait":
            waited = len(self._waiting()) * (t1 - t0)
            waited += sum(t1 - d["submit"] for d in submitted)
            self._pending_reward -= waited / 3600.0
        else:
            busy = st.capacity - st.free
            used = busy * (t1 - t0) - sum(d["procs"] * (t1 - d["end"]) for d in msg["ended"])
            self._pending_reward += used / max(st.capacity, 1) / 3600.0

    def _waiting(self):
        """The jobs waiting now, in queue order (those started at this
        instant left)."""
        return [j for j in self._state.queue if j.start is None]

    def _observation(self):
        st = self._state
        now = st.now
        queue = [{"id": j.id, "procs": j.procs, "requested": j.requested, "wait": now - j.submit,
                  "user": j.user, "fits": j.procs <= st.free}
                 for j in self._waiting()]
        running = [{"id": j.id, "procs": j.procs, "start": j.start, "requested": j.requested}
                   for _, j in sorted(st.running.items())]
        return {"time": now, "free": st.free, "capacity": st.capacity, "queue": queue, "running": running}

    def _info(self, invalid):
        st = self._state
        return {"pass": st.pass_no, "invalid_action": invalid,
                "ended": list(self._last["ended"]) if self._last else [],
                "action_mask": [j.procs <= st.free for j in self._waiting()]}


if gymnasium is not None and "schedsim/Scheduling-v0" not in gymnasium.registry:
    gymnasium.register(id="schedsim/Scheduling-v0", entry_point="schedsim_policy.env:SchedulingEnv")

__all__ = ["SchedulingEnv", "ActionSpace", "WAIT", "REWARDS", "FOREVER"]
