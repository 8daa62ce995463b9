"""schedsim_policy: write a schedsim scheduling policy in Python.

A policy is a subclass of Policy whose on_pass hook starts jobs (and may
reserve and ask to be woken); the base class speaks schedsim's external
policy protocol (schedsim-policy/1) over standard input and output and
keeps the queue, the running jobs and the machine for it. Run one with

    schedsim run --policy-exec 'python3 my_policy.py' ...

SchedulingEnv (schedsim_policy.env) is a gym-style environment over the
same protocol. The package uses the standard library only.
"""

from .client import FOREVER, JOB_FIELDS, PROTOCOL, Job, Policy, ProtocolError

__all__ = ["FOREVER", "JOB_FIELDS", "PROTOCOL", "Job", "Policy", "ProtocolError"]
