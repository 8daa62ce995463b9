package external

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// slowAnswer parses line with the general decoder only.
func slowAnswer(line []byte) (Answer, error) {
	var a Answer
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(line)))
	dec.DisallowUnknownFields()
	err := dec.Decode(&a)
	return a, err
}

// TestParseAnswer: the answers of the protocol, the fast path's and the
// general decoder's.
func TestParseAnswer(t *testing.T) {
	w := int64(1200)
	tests := []struct {
		line string
		want Answer
		fast bool
	}{
		{`{}`, Answer{}, true},
		{`{"start":[3,4]}`, Answer{Start: []int64{3, 4}}, true},
		{`{"start":[5],"reserve":[{"id":6,"at":900}]}`, Answer{Start: []int64{5}, Reserve: []Reservation{{6, 900}}}, true},
		{`{"wake":1200}`, Answer{Wake: &w}, true},
		{`{"start":[],"reserve":[],"wake":1200}`, Answer{Start: []int64{}, Reserve: []Reservation{}, Wake: &w}, true},
		{`{ "wake": 1200, "start": [1] }`, Answer{Start: []int64{1}, Wake: &w}, false},
		{`{"reserve":[{"at":900,"id":6}]}`, Answer{Reserve: []Reservation{{6, 900}}}, false},
		{"{\"start\":[7]}\r\n", Answer{Start: []int64{7}}, true},
		{`{"start":[1],"quiet":{"procs":4,"extra":2,"until":900}}`, Answer{Start: []int64{1}, Quiet: &Quiet{Procs: 4, Extra: 2, Until: ptr(900)}}, true},
		{`{"quiet":{"procs":0}}`, Answer{Quiet: &Quiet{}}, true},
		{`{"wake":1200,"quiet":{"procs":3,"until":50}}`, Answer{Wake: &w, Quiet: &Quiet{Procs: 3, Until: ptr(50)}}, true},
		// An ask, even empty, makes the answer not the pass's last.
		{`{"ask":[4,5],"start":[3]}`, Answer{Start: []int64{3}, Ask: []int64{4, 5}}, false},
		{`{"ask":[]}`, Answer{Ask: []int64{}}, false},
	}
	for _, tt := range tests {
		var a Answer
		if err := ParseAnswer([]byte(tt.line), &a); err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		if len(a.Start) == 0 && len(tt.want.Start) == 0 {
			a.Start, tt.want.Start = nil, nil
		}
		if len(a.Reserve) == 0 && len(tt.want.Reserve) == 0 {
			a.Reserve, tt.want.Reserve = nil, nil
		}
		detach(&a)
		if !reflect.DeepEqual(a, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.line, a, tt.want)
		}
		var f Answer
		if got := parseFast(bytes.TrimSpace([]byte(tt.line)), &f); got != tt.fast {
			t.Errorf("%s: fast path %v, want %v", tt.line, got, tt.fast)
		}
	}
}

// FuzzParseAnswer: on every line the fast path accepts, the general
// decoder agrees; ParseAnswer never panics.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{}`, `{"start":[3,4]}`, `{"start":[5],"reserve":[{"id":6,"at":900}]}`, `{"wake":1200}`,
		`{"start":[-0]}`, `{"start":[01]}`, `{"start":[9223372036854775807]}`, `{"wake":1.5}`, `{"start":[1],"start":[2]}`, `{"start":[1]} `, `{"quiet":{"procs":2,"extra":1,"until":7}}`, `{"wake":5,"quiet":{"procs":0}}`, `{"ask":[1],"start":[0]}`, `{"ask":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var a Answer
		_ = ParseAnswer(line, &a)
		var fast Answer
		if !parseFast(line, &fast) {
			return
		}
		slow, err := slowAnswer(line)
		if err != nil {
			t.Fatalf("%q: fast path accepts, decoder says %v", line, err)
		}
		norm := func(a *Answer) {
			if len(a.Start) == 0 {
				a.Start = nil
			}
			if len(a.Reserve) == 0 {
				a.Reserve = nil
			}
		}
		norm(&fast)
		norm(&slow)
		detach(&fast)
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast %+v, decoder %+v", line, fast, slow)
		}
	})
}

func ptr(n int64) *int64 { return &n }

// detach copies what a.Quiet points to and clears the fast path's memory.
func detach(a *Answer) {
	if a.Quiet != nil {
		q := *a.Quiet
		a.Quiet = &q
	}
	a.quiet = Quiet{}
}
