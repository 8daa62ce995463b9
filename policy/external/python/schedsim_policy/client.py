"""The protocol client: a base class that keeps the state of the run."""

from bisect import bisect_left, insort
import json
import json.scanner
import os
import sys

PROTOCOL = "schedsim-policy/1"

# FOREVER is the predicted end of a job without a requested time.
FOREVER = float("inf")


class ProtocolError(Exception):
    """schedsim sent something this client does not understand."""


# JOB_FIELDS are a submitted job's attributes besides its id, in the
# protocol's order: that of a job's keys in a pass message, and of its
# values in a row.
JOB_FIELDS = ("job", "submit", "procs", "requested", "user", "group", "queue", "partition")


class Job:
    """A job as schedsim describes it at its submission.

    id is the job's unique number in the run (its position in the trace),
    which decisions name; job is the trace's own job number. requested is
    the requested time in seconds (0: none; such a job runs until it ends
    and is never killed). start and pred_end are set once it runs.

    The arguments are the id and JOB_FIELDS, in that order (a row of a
    pass message: Job(*row)) or by name (a job's object: Job(**d)); those
    schedsim did not send (see Policy.fields) read -1 (requested: 0).
    """

    __slots__ = ("id",) + JOB_FIELDS + ("start", "pred_end", "back", "nodes")

    def __init__(self, id, job=-1, submit=-1, procs=None, requested=0, user=-1, group=-1, queue=-1, partition=-1):
        if procs is None:
            raise ProtocolError("job %d: no procs" % id)
        self.id = id
        self.job = job
        self.submit = submit
        self.procs = procs
        self.requested = requested
        self.user = user
        self.group = group
        self.queue = queue
        self.partition = partition
        self.start = self.pred_end = None
        # back: the processors it gives back to service when it ends,
        # once it runs (fewer than procs while some of its nodes drain).
        self.back = procs
        # nodes: on a cluster of nodes, the [first, last] ranges of the
        # nodes it runs on, once it runs.
        self.nodes = None

    def __repr__(self):
        return "Job(id=%d, procs=%d, requested=%d, submit=%d)" % (
            self.id, self.procs, self.requested, self.submit)


class Policy:
    """Base class of a policy: override on_pass, and the other hooks if needed.

    State kept for the subclass, up to date when a hook runs:
      now       the current time (s)
      capacity  processors in service; free: processors idle now (it
                goes down as the pass starts jobs)
      queue     the waiting jobs, in queue (submission) order
      running   the running jobs, id -> Job
      ends      the running jobs as (pred_end, id, back), sorted: the
                order in which they are predicted to end
      pass_no   the number of the current pass
      node_events  true when the run has node events (the machine's
                capacity changes; see on_node_event)
      cluster   on a cluster of nodes, schedsim's description of it (the
                hello's machine: select, groups, partitions), else None;
                there a job may not fit although enough processors are
                free: ask with fits(job), and start(job) learns at once
                where the job was placed and what it holds (job.back)
      calendar  true when the run has reservations, start windows or
                limits, which schedsim enforces: ask with fits(job)
                (refusal then says why one may not start: "limit",
                "start window", "reservation"; a job a limit holds does
                not block the queue in Slurm)
      asks      true when a start must be asked about first (cluster or
                calendar)
    """

    name = "policy"
    # fields, if not None, are the only job attributes the policy reads,
    # among job, submit, procs, requested, user, group, queue, partition:
    # schedsim then sends those only, and the others read -1 (requested:
    # 0). procs is always sent. A policy that reads few saves decoding.
    fields = None
    # rows, if true, asks schedsim for the jobs of pass messages as arrays
    # of values (the hello's "rows"), which decode about twice as fast as
    # objects; with fields, schedsim then sends JOB_FIELDS up to the last
    # one the policy reads. False keeps them objects, as in the README's
    # examples of messages.
    rows = True
    # ask_node_events, if true (the default), asks schedsim for the node
    # events of a run that has them: on_node_event is then called for
    # each, and the running jobs' back follows the draining nodes.
    ask_node_events = True
    # ask_placed, if true (the default), asks schedsim, on a cluster of
    # nodes, where each started job was placed (job.nodes, job.back).
    ask_placed = True

    def __init__(self):
        self.now = 0
        self.procs = 0
        self.capacity = 0
        self.free = 0
        self.queue = []
        self.running = {}
        self.ends = []
        self.pass_no = 0
        self.node_events = False
        self.cluster = None
        self.calendar = False
        self.asks = False
        self.refusal = None
        self.refusals = {}
        self._readline = self._wfd = self._scan = None
        self._started = []  # the jobs started at this pass, in order
        self._gone = []  # those of them already sent, with an ask
        self._reserve = []
        self._wake = None
        self._quiet = None

    # Hooks. ---------------------------------------------------------------

    def on_begin(self, procs):
        """Called once with the machine size, before the first pass."""

    def on_submit(self, job):
        """Called for each job submitted, once it is in the queue."""

    def on_end(self, job, killed):
        """Called for each job that ended (killed: at its requested time).
        A job a node failure stopped ends with killed false; requeued, it
        is then submitted again (on_submit, same id)."""

    def on_node_event(self, event):
        """Called for each node event, before the ends of the pass: a dict
        with time, state ("down", "drain", "resume"), nodes ([first, last]
        ranges), reason and, for "down", stopped (the ids of the running
        jobs it stopped, which end in this pass) and requeued."""

    def on_pass(self):
        """Decide: call start, reserve and wake_at. The default starts nothing."""

    def on_finish(self):
        """Called when the run is over."""

    # Decisions. -----------------------------------------------------------

    def start(self, job):
        """Start a queued job now; it must fit the free processors."""
        if job.start is not None:
            raise ValueError("job %d is not queued" % job.id)
        procs = job.procs
        if procs > self.free:
            raise ValueError("job %d needs %d processors, %d are free" % (job.id, procs, self.free))
        self.free -= procs
        job.start = now = self.now
        job.pred_end = end = now + job.requested if job.requested > 0 else FOREVER
        self.running[job.id] = job
        insort(self.ends, (end, job.id, procs))
        self._started.append(job)
        if self.cluster is not None:
            self._exchange([])  # where it went, and what it holds

    def fits(self, job):
        """Whether a queued job fits now. On a pool of processors: it asks
        for no more than the free processors. On a cluster of nodes
        schedsim's node selector answers (a round trip: the starts of
        the pass so far are applied first)."""
        if not self.asks:
            return job.procs <= self.free
        return job.id in self._exchange([job.id])

    def fits_any(self, jobs):
        """The ids of those of jobs that fit now, each on its own (one
        round trip on a cluster of nodes or under a calendar; refusals
        then maps those the calendar holds to why)."""
        if not self.asks:
            return {j.id for j in jobs if j.procs <= self.free}
        return set(self._exchange([j.id for j in jobs]))

    def _exchange(self, ask):
        """Send the pass's decisions so far with an ask, read schedsim's
        fits message, take it in and return its fits list."""
        if self._readline is None:
            raise ProtocolError("fits and start on a cluster of nodes need run()'s connection")
        line = self._answer(ask)
        data = line.encode()
        while data:
            data = data[os.write(self._wfd, data):]
        msg = self._scan(self._readline().decode(), 0)[0]
        if msg.get("type") != "fits":
            raise ProtocolError("want a fits message, got %r" % msg.get("type"))
        self.free = msg["free"]
        if "placed" in msg:
            self._placed(msg["placed"])
        held = msg.get("held")
        self.refusals = dict(held) if held else {}
        self.refusal = held[-1][1] if held else None  # fits(job) asks about one job
        return msg["fits"]

    def _placed(self, placed):
        """Where started jobs were placed: [id, held, nodes] each."""
        ends, running = self.ends, self.running
        for id, held, nodes in placed:
            job = running.get(id)
            if job is None:
                raise ProtocolError("placed: job %d is not running" % id)
            job.nodes = nodes
            if held != job.back:
                del ends[bisect_left(ends, (job.pred_end, job.id, job.back))]
                job.back = held
                insort(ends, (job.pred_end, job.id, held))

    def reserve(self, job, at):
        """Promise that a queued job starts no later than at."""
        self._reserve.append((job.id, int(at)))

    def quiet(self, procs, extra=0, until=None):
        """Promise that, until a job ends or a wake-up falls due, a job
        submitted now or later could make this policy start anything only
        if it asks for at most procs processors and either ends by until
        (now + requested <= until) or asks for at most extra processors:
        schedsim then does not call the policy for the others (they come
        with the next pass). quiet(0): no submission alone could."""
        self._quiet = (int(procs), int(extra), None if until is None else int(until))

    def wake_at(self, t):
        """Ask for a pass at time t (after now); schedsim calls the policy
        then if a waiting job fits the free processors."""
        t = int(t)
        if self._wake is None or t < self._wake:
            self._wake = t

    # The protocol. --------------------------------------------------------
    #
    # A pass costs what its message carries: the state is updated in
    # place, the answer is formatted by hand, and nothing walks the whole
    # queue or the running jobs unless the policy does.

    def _submitted(self, job):
        q = self.queue
        if q and job.id < q[-1].id:
            # Joined out of submission order (the end of a hold): the
            # queue stays in submission order, as schedsim's.
            keys = [j.id for j in q]
            q.insert(bisect_left(keys, job.id), job)
        else:
            q.append(job)
        self.on_submit(job)

    def _ended(self, id, killed):
        job = self.running.pop(id, None)
        if job is None:
            raise ProtocolError("job %d ended but was not running" % id)
        ends = self.ends
        del ends[bisect_left(ends, (job.pred_end, job.id, job.back))]
        self.on_end(job, killed)

    def _nodes(self, msg):
        """Take in a pass's node events and the running jobs' new back."""
        for ev in msg.get("node_events", ()):
            self.on_node_event(ev)
        ends = self.ends
        for id, procs in msg.get("back", ()):
            job = self.running.get(id)
            if job is None:
                raise ProtocolError("back: job %d is not running" % id)
            del ends[bisect_left(ends, (job.pred_end, job.id, job.back))]
            job.back = procs
            insort(ends, (job.pred_end, job.id, procs))

    def _all_ended(self, ended):
        """The jobs of a message's ended list end: rows [id, start, end,
        procs, killed] or objects."""
        if self.rows:
            for e in ended:
                self._ended(e[0], e[4])
        else:
            for d in ended:
                self._ended(d["id"], d["killed"])

    def handle(self, msg):
        """Handle one message (a dict); return the answer line (a str,
        newline-terminated), or None after the end message."""
        kind = msg.get("type")
        if kind == "pass":
            return self._pass(msg)
        if kind == "hello":
            if msg.get("protocol") != PROTOCOL:
                raise ProtocolError("schedsim speaks %r, this client %r" % (msg.get("protocol"), PROTOCOL))
            machine = msg["machine"]
            self.procs = self.capacity = self.free = machine["procs"]
            self.node_events = machine.get("node_events", False)
            self.cluster = machine if "groups" in machine else None
            self.calendar = machine.get("calendar", False)
            self.asks = self.cluster is not None or self.calendar
            # Every time of the run is in this unit: "s", "ms" or "us".
            self.time_unit = msg.get("time_unit", "s")
            self.on_begin(self.procs)
            hello = {"type": "hello", "protocol": PROTOCOL, "name": self.name}
            if self.fields is not None:
                fields = set(self.fields) | {"procs"}
                unknown = fields.difference(JOB_FIELDS)
                if unknown:
                    raise ValueError("fields: unknown job fields %s (the fields are %s)" % (sorted(unknown), ", ".join(JOB_FIELDS)))
                if self.rows:  # up to the last one read: a row is then Job's arguments
                    fields = JOB_FIELDS[:1 + max(JOB_FIELDS.index(f) for f in fields)]
                hello["fields"] = [f for f in JOB_FIELDS if f in fields]
            if self.rows:
                hello["rows"] = True
            if self.node_events and self.ask_node_events:
                hello["node_events"] = True
            if self.cluster is not None and self.ask_placed:
                hello["placed"] = True
            return json.dumps(hello, separators=(",", ":")) + "\n"
        if kind == "end":
            self.now = msg["time"]
            self._all_ended(msg["ended"])
            self.on_finish()
            return None
        raise ProtocolError("unknown message type %r" % kind)

    def _pass(self, msg):
        self._update(msg)
        self.on_pass()
        return self._answer()

    def _update(self, msg):
        """Bring the state up to the pass message msg."""
        self.pass_no = msg["pass"]
        self.now = msg["time"]
        ended, submitted = msg["ended"], msg["submitted"]
        if len(msg) > 9:  # keys a plain run's pass does not have
            if "placed" in msg:
                self._placed(msg["placed"])
            self._nodes(msg)
        if ended:
            self._all_ended(ended)
        if submitted:
            if self.rows:
                for row in submitted:
                    self._submitted(Job(*row))
            else:
                for d in submitted:
                    self._submitted(Job(**d))
        self.free = msg["free"]
        self.capacity = msg["capacity"]
        if len(self.queue) != msg["queued"]:
            raise ProtocolError("pass %d: %d jobs queued here, schedsim has %d" % (self.pass_no, len(self.queue), msg["queued"]))

    def _answer(self, ask=None):
        """The answer line of the pass's decisions, which it clears; the
        started jobs leave the queue. With ask (a list of ids), the line
        asks which of those fit (it is then not the pass's last)."""
        started, reserve, wake, quiet = self._started, self._reserve, self._wake, self._quiet
        if ask is not None:
            self._started, self._reserve, self._wake = [], [], None  # quiet: with the last answer
            parts = ['"ask":[' + ",".join([str(i) for i in ask]) + "]"]
            if started:
                parts.append('"start":[' + ",".join([str(j.id) for j in started]) + "]")
                self._gone.extend(started)  # they leave the queue with the last answer
            if reserve:
                parts.append('"reserve":[' + ",".join(['{"id":%d,"at":%d}' % r for r in reserve]) + "]")
            if wake is not None:
                parts.append('"wake":%d' % wake)
            return "{" + ",".join(parts) + "}\n"
        if self._gone:
            # The jobs started with an ask leave the queue now, with
            # this answer's (in one call: a filter of the queue in
            # _leave takes them all).
            gone, self._gone = self._gone, []
            self._leave(gone + started)
            started_left = True
        else:
            started_left = False
        if not started and not reserve and wake is None and quiet is None:
            return "{}\n"
        self._started, self._reserve, self._wake, self._quiet = [], [], None, None
        if len(started) == 1 and not reserve and wake is None and quiet is None:
            # FCFS's and EASY's usual pass: the head starts.
            if not started_left:
                self._leave(started)
            return '{"start":[%d]}\n' % started[0].id
        parts = []
        if started:
            parts.append('"start":[' + ",".join([str(j.id) for j in started]) + "]")
            if not started_left:
                self._leave(started)
        if reserve:
            parts.append('"reserve":[' + ",".join(['{"id":%d,"at":%d}' % r for r in reserve]) + "]")
        if wake is not None:
            parts.append('"wake":%d' % wake)
        if quiet is not None:
            if quiet[2] is None:
                parts.append('"quiet":{"procs":%d,"extra":%d}' % quiet[:2])
            else:
                parts.append('"quiet":{"procs":%d,"extra":%d,"until":%d}' % quiet)
        return "{" + ",".join(parts) + "}\n"

    def _leave(self, started):
        """Remove the started jobs from the queue."""
        q = self.queue
        if q[0] is started[0] and len(started) == 1:
            del q[0]  # the head
        elif len(started) > 8:
            q[:] = [j for j in q if j.start is None]  # in place: one pass over the queue
        else:
            for job in started:
                try:
                    q.remove(job)
                except ValueError:
                    raise ValueError("job %d is not queued" % job.id) from None

    def run(self, inp=None, out=None):
        """Answer schedsim's messages until the end message. inp and out
        are binary files (default: standard input and output). A pass is
        one read (a line from inp's buffer, which holds what the pipe
        had) and one write, unbuffered, to out's file descriptor."""
        readline = (inp or sys.stdin.buffer).readline
        wfd = (out or sys.stdout).fileno()
        write = os.write
        # The decoder's scanner, called directly: json.loads would add a
        # few Python calls per message around the same C code.
        scan = json.scanner.make_scanner(json.JSONDecoder())
        self._readline, self._wfd, self._scan = readline, wfd, scan
        handle, pas = self.handle, self._pass
        for line in iter(readline, b""):
            msg = scan(line.decode(), 0)[0]
            ans = pas(msg) if msg["type"] == "pass" else handle(msg)
            if ans is None:
                return
            ans = ans.encode()
            while ans:
                ans = ans[write(wfd, ans):]
