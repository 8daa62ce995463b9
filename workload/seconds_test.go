package workload

import "testing"

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in    string
		limit Time
		want  Time
		ok    bool
	}{
		{"0", 100, 0, true},
		{"3600", Forever, 3600, true},
		{"30s", Forever, 30, true},
		{"90m", Forever, 5400, true},
		{"2h", Forever, 7200, true},
		{"2d", Forever, 172800, true},
		{"100", 100, 100, true},
		{"101", 100, 0, false},
		{"2m", 100, 0, false},
		{"", Forever, 0, false},
		{"d", Forever, 0, false},
		{"-1", Forever, 0, false},
		{"1.5h", Forever, 0, false},
		{"1w", Forever, 0, false},
		{" 1", Forever, 0, false},
		{"9223372036854775807d", Forever, 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseSeconds(tt.in, tt.limit)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseSeconds(%q, %d) = %d, %v; want %d, %v", tt.in, tt.limit, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"0", "90m", "2d", "", "-1", "1w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseSeconds(s, Forever)
		if ok && v < 0 {
			t.Fatalf("ParseSeconds(%q) = %d", s, v)
		}
	})
}
