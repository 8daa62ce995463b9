package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// TestCleaningLabels: every cleaning count but the records read and kept
// has a label for people, so report.html never shows a bare key.
func TestCleaningLabels(t *testing.T) {
	typ := reflect.TypeOf(workload.CleanStats{})
	for i := 0; i < typ.NumField(); i++ {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if key == "records" || key == "kept" {
			continue
		}
		if cleaningLabels[key] == "" {
			t.Errorf("cleaning count %s has no label", key)
		}
	}
	var c workload.CleanStats
	json.Unmarshal([]byte(`{"records":5,"kept":3,"dropped_run_le_0":2}`), &c)
	rows := cleaningHumanRows(c)
	if len(rows) != 2 || rows[1].label != "dropped: run time of 0 s or less (dropped_run_le_0)" {
		t.Errorf("rows %+v", rows)
	}
}
