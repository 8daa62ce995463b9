#!/usr/bin/env python3
"""EASY backfilling, as an external schedsim policy.

At every pass, start jobs from the head of the queue while they fit. When
the head does not fit, it gets a reservation at its shadow time: the
earliest predicted end of the running jobs (by their requested times) at
which enough processors are free for it; the processors free then beyond
its need are the extra processors. Then every job behind the head that
fits now starts if it has a requested time and either ends by the shadow
time or uses no more than the extra processors (which it then consumes).
The same schedule as schedsim's --backfill easy --lookahead all, and as
pyss's EASY scheduler. (A head that waits for a job without a requested
time, or more processors than are in service, has no shadow time: then
the jobs behind it are backfilled up to the earliest time it could
start, as if the jobs without a requested time ended now.) On a cluster of
nodes a job starts only where schedsim's node selector says it fits, as
schedsim's EASY does there; under reservations, start windows and limits
only when schedsim says it may (its shadow time then ignores the
reservations, so it promises nothing).

    schedsim run --policy-exec 'python3 policy/external/python/examples/easy.py'
"""

import os
import sys
from itertools import islice

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedsim_policy import FOREVER, Policy  # noqa: E402

MAX_TIME = 10 ** 11  # the last time schedsim represents (a quiet rule's "never")


class EASY(Policy):
    """EASY backfilling with a reservation for the head of the queue."""

    name = "easy"
    fields = ("submit", "procs", "requested")  # what it reads: schedsim sends no more

    def shadow(self, procs):
        """The earliest predicted time procs processors are free, and the
        processors free beyond procs then; (None, 0) if that is unknown."""
        avail, shadow = self.free, None
        if avail >= procs:
            return self.now, avail - procs
        for end, _, p in self.ends:  # in the order they are predicted to end
            if shadow is not None and end > shadow:
                break  # every job ending at the shadow time is counted
            avail += p
            if shadow is None and avail >= procs:
                shadow = end
        if shadow is None or shadow == FOREVER:
            return None, 0
        return shadow, avail - procs

    def earliest_possible(self, procs):
        """For a head whose shadow time is unknown (it waits for running
        jobs without a requested time, or more processors than are in
        service): the earliest time it could start, as if those jobs
        ended now (FOREVER if never), and the processors a job running
        past it may use: the head's leftover then if one such job runs,
        none if several do (it could start once some of them end)."""
        avail, unknown, ends = self.free, 0, self.ends
        for end, _, p in reversed(ends):
            if end != FOREVER:
                break
            avail += p
            unknown += 1
        at = self.now
        if avail < procs:
            at = None
            for end, _, p in ends:
                if end == FOREVER or (at is not None and end > at):
                    break
                avail += p
                if at is None and avail >= procs:
                    at = end
            if at is None:
                return FOREVER, 0
        return at, (avail - procs if unknown <= 1 else 0)

    def on_pass(self):
        queue = self.queue
        asks, calendar = self.asks, self.calendar
        n, i = len(queue), 0
        while i < n:
            job = queue[i]
            if job.procs <= self.free or calendar:
                if not asks or self.fits(job):
                    self.start(job)
                    i += 1
                    continue
                if self.refusal == "limit":
                    i += 1  # a limit holds it: Slurm passes over it
                    continue
            break
        if i == n:
            return
        head = queue[i]
        shadow, extra = self.shadow(head.procs)
        if shadow is None:
            shadow, extra = self.earliest_possible(head.procs)
        elif not calendar:  # (its shadow time ignores the reservations)
            self.reserve(head, shadow)
        now, free = self.now, self.free
        for job in islice(queue, i + 1, None) if free else ():
            if job.procs > free or job.requested <= 0:
                continue  # it does not fit, or it could run past any time
            use_extra = now + job.requested > shadow
            if use_extra and job.procs > extra:
                continue  # it would delay the head
            if asks:
                # If it may start, it takes what it holds (on nodes,
                # whole nodes may hold more than it asks for).
                if not self.fits(job):
                    continue
                self.start(job)
                if use_extra:
                    extra = max(extra - (free - self.free), 0)
                free = self.free
            else:
                if use_extra:
                    extra -= job.procs
                self.start(job)
                free -= job.procs
            if not free:
                break
        # Until something ends, a job submitted later starts only on these
        # terms: schedsim need not call for the others.
        self.quiet(free, extra, shadow if shadow != FOREVER else MAX_TIME)


if __name__ == "__main__":
    EASY().run()
