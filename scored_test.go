package schedsim

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// TestScoreDHost checks the cluster's default limits (SPEC §4, issue #22
// item 9): the memory one host has from the header's MaxMemory unless the
// configuration gives it, and the processors per host from MaxProcs and
// MaxNodes.
func TestScoreDHost(t *testing.T) {
	hdr := func(mem string, procs, nodes int) *workload.Header {
		h := &workload.Header{MaxProcs: procs, MaxNodes: nodes}
		if mem != "" {
			h.Fields = append(h.Fields, workload.HeaderField{Key: "MaxMemory", Value: mem})
		}
		return h
	}
	for _, tc := range []struct {
		name           string
		h              *workload.Header
		memKB, perHost int64 // configured before
		wantMem        int64
		wantPer        int
		wantErr        string
	}{
		{name: "header memory", h: hdr("262144", 0, 0), wantMem: 262144},
		{name: "configured memory wins", h: hdr("262144", 0, 0), memKB: 1000, wantMem: 1000},
		{name: "unknown memory", h: hdr("-1", 0, 0)},
		{name: "no header", h: hdr("", 0, 0)},
		{name: "SMP nodes", h: hdr("", 1024, 256), wantPer: 4},
		{name: "nodes do not divide processors", h: hdr("", 1000, 300)},
		{name: "configured hosts win", h: hdr("", 1024, 256), perHost: 2, wantPer: 2},
		{name: "bad memory", h: hdr("lots", 0, 0), wantErr: `t.swf: header MaxMemory "lots"`},
		{name: "memory beyond 2^50 KB", h: hdr("9223372036854775807", 0, 0), wantErr: "header MaxMemory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := policy.NewScoreD(2, policy.Exclusive)
			cfg.MemKB, cfg.ProcsPerHost = tc.memKB, int(tc.perHost)
			err := scoreDHost(&cfg, tc.h, "t.swf")
			if tc.wantErr != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ie) {
					t.Fatalf("error %v, want an input error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MemKB != tc.wantMem || cfg.ProcsPerHost != tc.wantPer {
				t.Errorf("memory %d KB, %d processors per host; want %d, %d", cfg.MemKB, cfg.ProcsPerHost, tc.wantMem, tc.wantPer)
			}
		})
	}
}
