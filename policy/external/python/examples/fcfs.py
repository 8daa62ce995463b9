#!/usr/bin/env python3
"""First come, first served, as an external schedsim policy.

At every pass, start jobs from the head of the queue while the head fits
the free processors (on a cluster of nodes, or under reservations, start
windows and limits: when schedsim says it may); a job never overtakes
another, but for one a limit holds, which Slurm passes over. The same schedule as
schedsim's own --backfill off.

    schedsim run --policy-exec 'python3 policy/external/python/examples/fcfs.py'
"""

import os
import sys

# The client package sits beside this directory.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedsim_policy import Policy  # noqa: E402


class FCFS(Policy):
    """Strict submission order: the head starts when it fits, then the next.

    With --stats it also counts, through the hooks, the jobs it saw
    submitted, started and ended, and their mean wait, and writes them to
    standard error at the end (schedsim passes a policy's standard error
    through).
    """

    name = "fcfs"
    fields = ("submit", "procs")  # what it reads: schedsim sends no more

    def __init__(self, stats=False):
        super().__init__()
        self.stats = stats
        self.submitted = self.started = self.ended = self.killed = 0
        self.waited = 0

    def on_submit(self, job):
        self.submitted += 1

    def on_end(self, job, killed):
        self.ended += 1
        self.killed += killed

    def on_pass(self):
        if self.asks:
            return self.asked_pass()
        for job in self.queue:
            if job.procs > self.free:
                self.quiet(0)  # no job submitted later can start before it
                break  # the head waits, and every job behind it
            self.start(job)
            self.started += 1
            self.waited += self.now - job.submit

    def asked_pass(self):
        """FCFS where schedsim says which jobs may start (a cluster of
        nodes, a calendar): ask about the next jobs of the queue at once,
        start the first that fits, and ask again after each start."""
        queue, k, n, size = self.queue, 0, len(self.queue), 16
        while k < n:
            batch = queue[k:k + size]  # FCFS mostly stops at the first
            size *= 4  # unless limits hold many
            fits = self.fits_any(batch)
            why = self.refusals
            for job in batch:
                k += 1
                if job.id in fits:
                    self.start(job)
                    self.started += 1
                    self.waited += self.now - job.submit
                    break  # what fits has changed: ask again
                if why.get(job.id) != "limit":  # held by a limit: Slurm passes over it
                    self.quiet(0)
                    return

    def on_finish(self):
        if self.stats:
            mean = self.waited / self.started if self.started else 0.0
            sys.stderr.write("fcfs: %d submitted, %d started, %d ended (%d killed), mean wait %.1f s\n"
                             % (self.submitted, self.started, self.ended, self.killed, mean))


if __name__ == "__main__":
    FCFS(stats="--stats" in sys.argv[1:]).run()
