package schedsim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoreDCluster runs SCore-D's queues on a cluster of nodes: HPC2N's
// machine as a [cluster] (and as a slurm.conf) of 120 hosts of 2
// processors with 1 GB each, in
// gang and exclusive mode, with a host failure and a maintenance that name
// the cluster's hosts. The run is the one on a pool of 240 processors with
// nodes of 2 (--node-size 2) and the host's memory given in [scored]: the
// same jobs.csv byte for byte, and schedsim verify passes on it. A
// cluster SCore-D cannot be — hosts that differ, several partitions — is
// refused with the reason.
func TestScoreDCluster(t *testing.T) {
	trace := filepath.Join("..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	dir := t.TempDir()
	// Hosts 0-19 (processors 0-39, where jobs 69, 70 and 73 run) down
	// from 400000 to 500000, their jobs requeued, hosts 60-79 drained
	// meanwhile; node numbers are hosts, 0-119.
	events := writeFile(t, dir, "hosts.events", "400000 DOWN 0-19 disk\n410000 DRAIN 60-79\n450000 RESUME 60-79\n500000 RESUME 0-19\n")
	clusterTOML := writeFile(t, dir, "cluster.toml", "[scored]\n[[scored.queue]]\nmemory_percent = 50\n[[scored.queue]]\n[cluster]\n[[cluster.groups]]\nname = \"hpc2n\"\ncount = 120\ncores = 2\nmemory_mb = 1024\n")
	// The same hosts in a slurm.conf (one partition without limits).
	queuesTOML := writeFile(t, dir, "queues.toml", "[scored]\n[[scored.queue]]\nmemory_percent = 50\n[[scored.queue]]\n")
	slurmConf := writeFile(t, dir, "slurm.conf", "NodeName=n[1-120] CPUs=2 RealMemory=1024\nPartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n")
	poolTOML := writeFile(t, dir, "pool.toml", "[scored]\nmemory_kb = 1048576\nprocs_per_host = 2\n[[scored.queue]]\nmemory_percent = 50\n[[scored.queue]]\n")
	for _, mode := range []string{"gang", "exclusive"} {
		t.Run(mode, func(t *testing.T) {
			jobs := map[string][]byte{}
			for _, machine := range []string{"cluster", "slurm.conf", "pool"} {
				sc := Default()
				sc.Trace, sc.Mode, sc.MPL = trace, mode, 2
				sc.NodeEvents, sc.OnNodeFail = events, "requeue"
				sc.Out = filepath.Join(dir, mode+"-"+machine)
				sc.Config = clusterTOML
				switch machine {
				case "slurm.conf":
					sc.Config, sc.SlurmConf = queuesTOML, slurmConf
				case "pool":
					sc.Config, sc.Procs, sc.NodeSize = poolTOML, 240, 2
				}
				if _, err := Run(context.Background(), &sc, Options{Warn: io.Discard}); err != nil {
					t.Fatalf("%s: %v", machine, err)
				}
				b, err := os.ReadFile(filepath.Join(sc.Out, "jobs.csv"))
				if err != nil {
					t.Fatal(err)
				}
				jobs[machine] = b
				var out bytes.Buffer
				if _, err := VerifyDir(sc.Out, 5, &out); err != nil {
					t.Fatalf("%s: verify: %v\n%s", machine, err, out.String())
				}
			}
			for _, m := range []string{"cluster", "slurm.conf"} {
				if !bytes.Equal(jobs[m], jobs["pool"]) {
					t.Errorf("jobs.csv on the %s differs from the pool's", m)
				}
			}
			if !bytes.Contains(jobs["cluster"], []byte("requeues=")) {
				t.Error("no job was requeued by the hosts' failure")
			}
		})
	}
	for _, tc := range []struct{ name, cluster, want string }{
		{"hosts differ", "[[cluster.groups]]\nname = \"a\"\ncount = 60\ncores = 2\n[[cluster.groups]]\nname = \"b\"\ncount = 30\ncores = 4\n", "identical hosts"},
		{"partitions", "[[cluster.groups]]\nname = \"a\"\ncount = 120\ncores = 2\n[[cluster.partitions]]\nname = \"p\"\ngroups = [\"a\"]\n[[cluster.partitions]]\nname = \"q\"\ngroups = [\"a\"]\n", "no partitions"},
	} {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.Mode = trace, "gang"
			sc.Config = writeFile(t, dir, tc.name+".toml", "[cluster]\n"+tc.cluster)
			_, err := Run(context.Background(), &sc, Options{Warn: io.Discard})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an InputError with %q", err, tc.want)
			}
		})
	}
}
