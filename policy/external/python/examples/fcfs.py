#!/usr/bin/env python3
"""First come, first served, as an external schedsim policy.

At every pass, start jobs from the head of the queue while the head fits
the free processors (on a cluster of nodes: when schedsim's node selector
says it fits); a job never overtakes another. The same schedule as
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
        cluster = self.cluster is not None
        for job in self.queue:
            if job.procs > self.free or (cluster and not self.fits(job)):
                self.quiet(0)  # no job submitted later can start before it
                break  # the head waits, and every job behind it
            self.start(job)
            self.started += 1
            self.waited += self.now - job.submit

    def on_finish(self):
        if self.stats:
            mean = self.waited / self.started if self.started else 0.0
            sys.stderr.write("fcfs: %d submitted, %d started, %d ended (%d killed), mean wait %.1f s\n"
                             % (self.submitted, self.started, self.ended, self.killed, mean))


if __name__ == "__main__":
    FCFS(stats="--stats" in sys.argv[1:]).run()
