package report

import "math"

// Summaries sort every class's waits and slowdowns (about eight sorts of a
// million values for a million-job run); an LSD radix sort does each in a
// few linear passes where a comparison sort took a hundred milliseconds.

// radixSort sorts keys ascending, using tmp (len ≥ len(keys)) as scratch.
// Byte positions where all keys agree are skipped.
func radixSort(keys, tmp []uint64) {
	n := len(keys)
	if n < 256 {
		insertionSort(keys)
		return
	}
	src, dst := keys, tmp[:n]
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, k := range src {
			count[byte(k>>shift)]++
		}
		if count[byte(src[0]>>shift)] == n {
			continue // every key has this byte: nothing to reorder
		}
		pos := 0
		for b := range count {
			c := count[b]
			count[b] = pos
			pos += c
		}
		for _, k := range src {
			b := byte(k >> shift)
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

func insertionSort(v []uint64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// sortNonNegInt64 sorts v (every value ≥ 0) ascending.
func sortNonNegInt64(v []int64, scratch *[]uint64) {
	keys := grow(scratch, 2*len(v))
	for i, x := range v {
		keys[i] = uint64(x)
	}
	radixSort(keys[:len(v)], keys[len(v):])
	for i := range v {
		v[i] = int64(keys[i])
	}
}

// sortNonNegFloat64 sorts v (every value ≥ 0, no NaN) ascending: the bits
// of non-negative floats order as the floats do.
func sortNonNegFloat64(v []float64, scratch *[]uint64) {
	keys := grow(scratch, 2*len(v))
	for i, x := range v {
		keys[i] = math.Float64bits(x)
	}
	radixSort(keys[:len(v)], keys[len(v):])
	for i := range v {
		v[i] = math.Float64frombits(keys[i])
	}
}

func grow(s *[]uint64, n int) []uint64 {
	if cap(*s) < n {
		*s = make([]uint64, n)
	}
	return (*s)[:n]
}
