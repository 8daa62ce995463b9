package infer

// Usage is schedsim infer's help: what inference looks for, how each rule
// shows in a log, and the options that set its thresholds (the fields of
// Options).
const Usage = `Usage: schedsim infer LOG [options]

Reads a log that records what the real machine did — each job's wait (SWF
field 3) and run time (field 4), so its start (submit + wait) and end — and
writes a scenario file (TOML) with the rules of the machine it can infer, for
schedsim run and schedsim fidelity. Each entry follows comment lines with its
evidence (counts, hours), so you can read it, edit it and rerun it; what was
looked for and not found is said too. It never looks at a simulation.

What it looks for, and how it shows in a log:

  machine size     the header's MaxProcs, or the most processors busy at once
  capacity         --capacity-days days or more in a row whose most busy
                   processors stay under --capacity-low of the machine while
                   queued jobs would have fit: processors out of service,
                   written as maintenance reservations holding them
  outages          idle-with-queue gaps (at most --near-zero of the machine
                   busy while a queued job would fit) of --outage-min or more
                   that end with the queue starting together: one-off
                   maintenance reservations
  drains           weekday and clock times at which the machine is near idle
                   with jobs queued on --drain-frac of the days or more:
                   recurring maintenance reservations (daily, weekdays,
                   weekends or weekly), on the clock (the header's zone, or
                   its standard time kept all year) where they line up best
                   — written as timezone
  start windows    start hours (weekdays, weekends) where jobs asking more
                   than a bound are nearly absent (--window-leak of those
                   expected from their share of all starts): start_window
                   entries with that max_wall; then the same for each
                   queue's jobs alone, written with queue = N where
                   stricter than the windows for all jobs
  size windows     start hours where a queue's (or all) jobs asking more
                   than a processor count are nearly absent (--window-leak
                   of those expected, --size-window-expected or more, from
                   the queue's own starts there): start_window entries
                   with max_procs
  user caps        users whose running jobs (or processors) sat at their
                   maximum for --cap-hold in --cap-episodes episodes or more
                   while a job of theirs would have fit the idle processors:
                   limit entries; a cap shared by several users that no user
                   exceeds becomes one limit for every user ("*")
  queue priorities queues whose jobs start ahead of other queues' earlier
                   jobs far more often than the reverse ([[priority_tier]])
  immediate queues queues whose jobs (--immediate-share of --immediate-min-jobs
                   or more) started within --immediate-wait, also while earlier
                   jobs of other queues waited for processors (--immediate-past):
                   they ran beside the machine (immediate_queues); the other
                   rules leave their jobs out (--immediate-beside)
  throttled users  users whose jobs were queued --throttle-backlog or more in
                   all with room for them (idle processors at least their
                   median job size) --throttle-room of that time or more: a
                   limit that moved kept them back; each is capped at the
                   --throttle-quantile quantile of the processors it held
                   then (a limit entry)
  held jobs        jobs that waited --held-room or more although the recorded
                   jobs left their processors idle for that long after their
                   submission (and no outage, drain, window or cap inferred
                   explains it): held by something the log does not record;
                   with --holds FILE they are written there, each held until
                   its recorded start, and the scenario names the file
  time sharing     the recorded jobs hold more processors than the machine
                   on --time-share of the time or more (said in a comment;
                   effective size and nodes are then not inferred)
  shared queues    on a time-shared machine, the fewest queues without whose
                   jobs the others stay within the machine in all but
                   --non-dedicated of the steps: they ran beside the others,
                   time-shared (shared_queues: their jobs start when they
                   reach the scheduler and their windows let them, on
                   whatever processors are free; only whole-machine
                   reservations hold them); --non-dedicated-note only says
                   them in a comment
  shared by day    with shared queues, the weekday hours (local clock) at
                   which the other queues' jobs (not the immediate ones),
                   some of them waiting, held a median that left
                   --shared-day-free of the machine or more: the longest
                   run of 4 hours or more at a plateau (hourly medians
                   within 1/32 of the machine), which at most a quarter of
                   the other hours reach, is a recurring maintenance
                   reservation (weekdays) of
                   the median they left then, rounded down to whole nodes
                   (or 32 processors on 512 or more), that the shared
                   queues' jobs are not held by
  latency          jobs that found their processors idle at submission and
                   started within --latency-wait: their median wait is how
                   long a job took to reach the scheduler (submit_latency,
                   with a queue's own where it differs); not when most of
                   them started on one second of the minute (a cycle)
  effective size   the median of the busy processors while jobs were queued,
                   when at least --effective-min of the machine: procs
  nodes            the largest k (2 to --node-max) such that --node-share of
                   the jobs asking more than one processor and a count that
                   is not a power of two ask a multiple of k: a [cluster] of
                   whole nodes of k processors

--node-events FILE also writes the capacity timeline, the outages and the
drains as node events (processors DRAIN and RESUME) for schedsim run
--node-events FILE, which engines without reservations run: nothing new
starts on held processors, but running jobs are not stopped and nothing is
kept from running into a drain.

The thresholds' defaults suit logs of a few months or more; the README's
"How close is the simulation to the real machine?" section shows results.

Examples:
  schedsim infer CTC-SP2-1996-3.1-cln.swf.gz --out ctc.toml
  schedsim fidelity ctc.toml
  schedsim infer log.swf.gz --drain-frac 0.3 --outage-min 1h
  schedsim infer log.swf.gz --out log.toml --node-events log.nodes
  schedsim infer log.swf.gz --out log.toml --holds log.holds
  schedsim fidelity --trace log.swf.gz --node-events log.nodes
`
