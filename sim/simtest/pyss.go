package simtest

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReferenceStarts reads an output of the reference simulator (pyss, in
// ../shared/reference/outputs: gzipped SWF lines, field 1 the job id, 2 its
// submission, 3 its wait) and returns every job's start time by job id.
func ReferenceStarts(path string) (map[int64]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out := make(map[int64]int64)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == ';' {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 3 {
			return nil, fmt.Errorf("%s: line %q: want at least 3 fields", path, line)
		}
		id, _ := strconv.ParseInt(fs[0], 10, 64)
		sub, _ := strconv.ParseInt(fs[1], 10, 64)
		wait, _ := strconv.ParseInt(fs[2], 10, 64)
		out[id] = sub + wait
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}
