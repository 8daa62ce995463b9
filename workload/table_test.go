package workload

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestParquetTableRoundTrip(t *testing.T) {
	cols := []string{"time", "state", "nodes", "reason"}
	rows := [][]string{{"86400", "DOWN", "0-102", "maintenance"}, {"2d", "RESUME", "0-102", ""}}
	var b bytes.Buffer
	if err := WriteParquetTable(&b, cols, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquetTable(bytes.NewReader(b.Bytes()), int64(b.Len()), "t.parquet", cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("read back %q, want %q", got, rows)
	}
}

func TestReadParquetTable(t *testing.T) {
	// Typed columns: integers and a double read as text, a null as "",
	// a missing optional column as "".
	data := writePQ(t, []pqCol{
		{"time", parquet.Optional(parquet.Int(64))},
		{"nodes", parquet.Int(32)},
		{"weight", parquet.Leaf(parquet.DoubleType)},
		{"state", parquet.String()},
	}, [][]any{
		{int64(3600), int32(-7), 0.5, "DOWN"},
		{nil, int32(12), 2.0, "RESUME"},
	}, 1)
	got, err := ReadParquetTable(bytes.NewReader(data), int64(len(data)), "typed.parquet", []string{"time", "state", "nodes", "weight", "reason"}, []bool{4: true})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"3600", "DOWN", "-7", "0.5", ""}, {"", "RESUME", "12", "2", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	errs := []struct {
		name string
		data []byte
		cols []string
		want string
	}{
		{"missing column", data, []string{"time", "when"}, `column "when": no such column`},
		{"not Parquet", []byte("PAR1 this is not a parquet file PAR1"), []string{"time"}, "not a readable Parquet file"},
		{"empty", nil, []string{"time"}, "not a readable Parquet file"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadParquetTable(bytes.NewReader(c.data), int64(len(c.data)), "bad.parquet", c.cols, nil)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Path != "bad.parquet" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a ParseError holding %q", err, c.want)
			}
		})
	}
}

// TestScanParquetTable: the streaming reader gives ReadParquetTable's rows,
// across row groups, and stops at the callback's first error.
func TestScanParquetTable(t *testing.T) {
	var rows [][]any
	for i := range 300 {
		var v any = int64(i)
		if i%7 == 0 {
			v = nil
		}
		rows = append(rows, []any{v, "s" + strings.Repeat("x", i%3)})
	}
	data := writePQ(t, []pqCol{{"n", parquet.Optional(parquet.Int(64))}, {"s", parquet.String()}}, rows, 50)
	cols := []string{"s", "n", "absent"}
	want, err := ReadParquetTable(bytes.NewReader(data), int64(len(data)), "t.parquet", cols, []bool{2: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 300 || want[0][1] != "" || want[1][1] != "1" || want[2][0] != "sxx" {
		t.Fatalf("ReadParquetTable: %d rows, first %q %q %q", len(want), want[0], want[1], want[2])
	}
	stop := errors.New("stop")
	tests := []struct {
		name    string
		stopAt  int // 0: never
		rows    int
		wantErr error
	}{
		{"whole", 0, 300, nil},
		{"stops", 120, 120, stop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]string
			err := ScanParquetTable(bytes.NewReader(data), int64(len(data)), "t.parquet", cols, []bool{2: true}, func(row []string) error {
				got = append(got, append([]string(nil), row...))
				if len(got) == tt.stopAt {
					return stop
				}
				return nil
			})
			if err != tt.wantErr {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, want[:tt.rows]) {
				t.Errorf("rows differ from ReadParquetTable's")
			}
		})
	}
	var pe *ParseError
	if err := ScanParquetTable(bytes.NewReader(data), int64(len(data)), "t.parquet", []string{"when"}, nil, func([]string) error { return nil }); !errors.As(err, &pe) || pe.Column != "when" {
		t.Errorf("missing column: %v", err)
	}
}
