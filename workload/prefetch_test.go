package workload

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readEvery reads r to its end or error, returning the jobs and the error.
func readEvery(r Reader) ([]Job, error) {
	var jobs []Job
	for {
		var j Job
		if err := r.Next(&j); err != nil {
			return jobs, err
		}
		jobs = append(jobs, j)
	}
}

// scribble sets every field of j to a value no reader gives, as a user of
// a lent job may: the job the reader puts there next must not show it.
func scribble(j *Job) {
	v := reflect.ValueOf(j).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int64:
			f.SetInt(-7)
		case reflect.Float64:
			f.SetFloat(-7.5)
		case reflect.String:
			f.SetString("scribbled")
		default:
			panic("scribble: a Job field of kind " + f.Kind().String())
		}
	}
}

// TestPrefetchSameAsDirect checks that Prefetch yields the reader's jobs,
// error and final counts, at the same position, for inputs shorter than,
// equal to and longer than a batch, and for an error inside and at the
// edge of a batch.
func TestPrefetchSameAsDirect(t *testing.T) {
	lines := func(n, bad int) []byte {
		var b strings.Builder
		b.WriteString("; MaxProcs: 64\n")
		for i := 1; i <= n; i++ {
			f := map[int]string{1: strconv.Itoa(i), 2: strconv.Itoa(i * 3)}
			if i%7 == 0 {
				f[4] = "0" // dropped by the default rules: counted in Stats
			}
			if i == bad {
				f[5] = "x"
			}
			b.WriteString(rec(f) + "\n")
		}
		return []byte(b.String())
	}
	// mixed has duplicate job numbers, CRLF ends, comments and blank
	// lines among the jobs, and lines with fractions (the general path).
	mixed := func(n int) []byte {
		var b strings.Builder
		b.WriteString("; MaxProcs: 64\n")
		for i := 1; i <= n; i++ {
			f := map[int]string{1: strconv.Itoa(i - i%5/4), 2: strconv.Itoa(i * 3)}
			if i%11 == 0 {
				f[4] = "12.5"
			}
			end := "\n"
			if i%3 == 0 {
				end = "\r\n"
			}
			if i%13 == 0 {
				end += "; a comment\n\n"
			}
			b.WriteString(rec(f) + end)
		}
		return []byte(b.String())
	}
	tests := []struct {
		name  string
		data  []byte
		rules Rules
	}{
		{"every job dropped", []byte("; MaxProcs: 64\n" + rec(map[int]string{1: "1", 4: "0"}) + "\n"), Rules{}},
		{"one job", lines(1, 0), Rules{}},
		{"one batch", lines(prefetchBatch, 0), Rules{}},
		{"batch plus one", lines(prefetchBatch+1, 0), Rules{}},
		{"many batches", lines(prefetchBatch*(prefetchDepth+5)+17, 0), Rules{}},
		{"error in the first batch", lines(3000, 12), Rules{}},
		{"error in a later batch", lines(9000, 2*prefetchBatch+5), Rules{}},
		{"error at a batch edge", lines(9000, prefetchBatch), Rules{}},
		{"duplicate job number", mixed(9000), Rules{}},
		{"duplicates dropped", mixed(9000), Rules{Duplicate: DuplicateDrop}},
		{"duplicates kept", mixed(9000), Rules{Duplicate: DuplicateKeep}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			direct, err := NewReader(bytes.NewReader(tc.data), "x.swf", tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := readEvery(direct)
			r, err := NewReader(bytes.NewReader(tc.data), "x.swf", tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			p := Prefetch(r)
			got, gotErr := readEvery(p)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("jobs differ: %d prefetched, %d direct", len(got), len(want))
			}
			if gotErr != wantErr && (gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error()) {
				t.Errorf("error %v, want %v", gotErr, wantErr)
			}
			if again := p.Next(&Job{}); again != gotErr {
				t.Errorf("Next after the end: %v, want %v again", again, gotErr)
			}
			if p.Stats() != direct.Stats() {
				t.Errorf("stats %+v, want %+v", p.Stats(), direct.Stats())
			}
			if p.Header().MachineSize() != direct.Header().MachineSize() || p.Path() != direct.Path() {
				t.Error("header or path differ")
			}
			if err := p.Close(); err != nil {
				t.Error(err)
			}

			// NextRef lends the same jobs, each valid until the next
			// call (scribbled over after it is copied), and the same
			// error at the same place.
			r, err = NewReader(bytes.NewReader(tc.data), "x.swf", tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			pr := Prefetch(r).(interface{ NextRef() (*Job, error) })
			var refs []Job
			var refErr error
			for {
				j, err := pr.NextRef()
				if err != nil {
					refErr = err
					break
				}
				refs = append(refs, *j)
				scribble(j)
			}
			if !reflect.DeepEqual(refs, want) {
				t.Errorf("jobs differ: %d lent, %d direct", len(refs), len(want))
			}
			if refErr != wantErr && (refErr == nil || wantErr == nil || refErr.Error() != wantErr.Error()) {
				t.Errorf("NextRef: error %v, want %v", refErr, wantErr)
			}
			if err := pr.(Reader).Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestPrefetchCloseEarly checks that closing a Prefetch before its end
// stops its goroutine (Close returns) and that Next then fails.
func TestPrefetchCloseEarly(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20*prefetchBatch; i++ {
		b.WriteString(rec(map[int]string{1: strconv.Itoa(i), 2: strconv.Itoa(i)}) + "\n")
	}
	for _, take := range []int{0, 1, prefetchBatch + 3} {
		r, err := NewReader(strings.NewReader(b.String()), "x.swf", Rules{})
		if err != nil {
			t.Fatal(err)
		}
		p := Prefetch(r)
		for range take {
			if err := p.Next(&Job{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		for range 2 * prefetchDepth * prefetchBatch {
			err := p.Next(&Job{})
			if err == nil {
				continue // jobs read ahead before Close may still come
			}
			if err == io.EOF || !errors.Is(err, errPrefetchClosed) {
				t.Fatalf("after %d jobs and Close: %v, want errPrefetchClosed", take, err)
			}
			break
		}
	}
}
