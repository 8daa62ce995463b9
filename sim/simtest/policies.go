package simtest

import (
	"testing"

	"github.com/schedsim/schedsim/policy"
)

// NamedPolicy is a policy for a table of cases: its name in the case's
// name, and a constructor, since a policy keeps state between passes and
// each run needs its own.
type NamedPolicy struct {
	Name string
	New  func() policy.Policy
}

// Policies returns the built-in policies every engine feature must work
// under: FCFS; EASY with the whole queue, a lookahead of 5, SJBF and HPC
// Pack's strict window; reservation depth 4; conservative backfilling; and
// Slurm's backfill with a cycle of 60 s.
func Policies(t testing.TB) []NamedPolicy {
	t.Helper()
	slurm, err := policy.NewSlurm(policy.SlurmParams{Interval: 60})
	if err != nil {
		t.Fatal(err)
	}
	return []NamedPolicy{
		{"fcfs", func() policy.Policy { return policy.FCFS{} }},
		{"easy", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
		{"easy-lookahead-5", func() policy.Policy { return &policy.EASY{Lookahead: 5} }},
		{"easy-sjbf", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, SJBF: true} }},
		{"hpcpack", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true} }},
		{"depth-4", func() policy.Policy { return &policy.Depth{Depth: 4, Lookahead: policy.LookaheadAll} }},
		{"conservative", func() policy.Policy { return &policy.Conservative{} }},
		{"slurm", func() policy.Policy { s := *slurm; return &s }},
	}
}
