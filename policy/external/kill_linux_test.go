package external_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy/external"
)

// TestKillsProcessGroup: on an error, the program's whole process group is
// killed: a child it left in the background does not outlive the run.
func TestKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := `sleep 1000 & echo $! > '` + pidFile + `'; read l; echo '{"type":"hello","protocol":"schedsim-policy/1"}'; read l; echo nonsense; wait`
	_, _, err := runExternal(t, external.Config{Command: cmd}, errorJobs, 10)
	if err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("error %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL is asynchronous: the process is gone (or a zombie) within
	// moments; wait at most 10 s for it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the policy's background child %d outlived the run", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
