package schedsim

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestSlurmTimingOptions: --bf-groups and --bf-ended take their
// values, name them in the policy when not the default, and apply to
// --backfill slurm only.
func TestSlurmTimingOptions(t *testing.T) {
	dir := filepath.Join("internal", "slurmcheck", "testdata", "run2")
	tests := []struct {
		name             string
		backfill         string
		groups, ended    string
		latency          string
		wantErr, wantPol string
	}{
		{name: "defaults", backfill: "slurm", wantPol: "slurm(bf_interval=1,"},
		{name: "both before", backfill: "slurm", groups: "first", ended: "completing", wantPol: ",bf_groups=first,bf_ended=completing,"},
		{name: "spelled out defaults", backfill: "slurm", groups: "aligned", ended: "phase", wantPol: "slurm(bf_interval=1,"},
		{name: "the rule before", backfill: "slurm", ended: "running", wantPol: ",bf_ended=running,"},
		{name: "bad groups", backfill: "slurm", groups: "last", wantErr: `--bf-groups "last": want aligned or first`},
		{name: "bad ended", backfill: "slurm", ended: "done", wantErr: `--bf-ended "done": want phase, running or completing`},
		{name: "end latency", backfill: "slurm", latency: "150ms", wantPol: ",bf_end_latency=150000us,"},
		{name: "end latency in us", backfill: "slurm", latency: "22000us", wantPol: "slurm(bf_interval=1,"},
		{name: "bad end latency", backfill: "slurm", latency: "0.1s", wantErr: `--bf-end-latency "0.1s": want whole milliseconds`},
		{name: "end latency not with running", backfill: "slurm", ended: "running", latency: "30ms", wantErr: "applies to --bf-ended phase only"},
		{name: "not slurm", backfill: "easy", groups: "first", wantErr: "apply to --backfill slurm only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.SlurmConf = filepath.Join(dir, "real.swf"), filepath.Join(dir, "schedsim.conf")
			sc.Backfill, sc.BFGroups, sc.BFEnded, sc.BFEndLatency = tc.backfill, tc.groups, tc.ended, tc.latency
			sc.Out, sc.Plots = t.TempDir(), false
			res, err := Run(context.Background(), &sc, Options{Warn: io.Discard})
			if tc.wantErr != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ie) {
					t.Fatalf("error %v, want an InputError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p := res.Summary.Policy; !strings.Contains(p, tc.wantPol) || (tc.groups != "first" && strings.Contains(p, "bf_groups")) {
				t.Errorf("policy %q, want it to contain %q", p, tc.wantPol)
			}
		})
	}
}
