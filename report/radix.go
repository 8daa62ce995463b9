package report

import "math"

// Metrics sorts the waits and the bounded slowdowns of every job, each
// tagged with its job's cell (see column); an LSD radix sort does it in a
// few linear passes where a comparison sort of a million values takes a
// hundred milliseconds.

// radixDigit is radixSort's digit, in bits: six passes cover 64 bits,
// where bytes take eight, and 2¹¹ counts still sit in a core's first-level
// cache. It sorts a run of slowdowns (whose bits vary throughout) a quarter
// faster than bytes do.
const (
	radixDigit  = 11
	radixDigits = (64 + radixDigit - 1) / radixDigit
	radixMask   = 1<<radixDigit - 1
)

// radixSort's counting is written out for six digits: this compiles only
// while there are six.
const _ = uint(radixDigits-6) + uint(6-radixDigits)

// radixSort sorts keys ascending, using tmp (at least as long) as scratch.
// It sorts runs of at most 2³² keys (see column).
func radixSort(keys, tmp []uint64) {
	n := len(keys)
	if n == 0 {
		return
	}
	if n > math.MaxUint32 {
		panic("report: radixSort of more than 2³² keys")
	}
	src, dst := keys, tmp[:n]
	// Every digit's counts in one read of the keys: a pass reorders the
	// keys but never changes how many have a given digit. Written out, and
	// in 32 bits, the counting takes a third less time than as a loop.
	var counts [radixDigits][1 << radixDigit]uint32
	for _, k := range keys {
		counts[0][k&radixMask]++
		counts[1][k>>radixDigit&radixMask]++
		counts[2][k>>(2*radixDigit)&radixMask]++
		counts[3][k>>(3*radixDigit)&radixMask]++
		counts[4][k>>(4*radixDigit)&radixMask]++
		counts[5][k>>(5*radixDigit)&radixMask]++
	}
	for d := range counts {
		shift := uint(d * radixDigit)
		count := &counts[d]
		if int(count[src[0]>>shift&radixMask]) == n {
			continue // every key has this digit: nothing to reorder
		}
		var pos uint32
		for b := range count {
			c := count[b]
			count[b] = pos
			pos += c
		}
		for _, k := range src {
			b := k >> shift & radixMask
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// radixSortTagged sorts keys ascending, moving tags along with them, using
// tmpKeys and tmpTags (each at least as long) as scratch. Equal keys keep
// their order.
func radixSortTagged(keys []uint64, tags []uint8, tmpKeys []uint64, tmpTags []uint8) {
	n := len(keys)
	if n == 0 {
		return
	}
	srcK, srcT, dstK, dstT := keys, tags, tmpKeys[:n], tmpTags[:n]
	// Every byte's counts in one read of the keys: a pass reorders the
	// keys but never changes how many have a given byte.
	var counts [8][256]int
	for _, k := range keys {
		for d := range counts {
			counts[d][byte(k>>(8*d))]++
		}
	}
	for shift := uint(0); shift < 64; shift += 8 {
		count := &counts[shift/8]
		if count[byte(srcK[0]>>shift)] == n {
			continue // every key has this byte: nothing to reorder
		}
		pos := 0
		for b := range count {
			c := count[b]
			count[b] = pos
			pos += c
		}
		for i, k := range srcK {
			b := byte(k >> shift)
			dstK[count[b]], dstT[count[b]] = k, srcT[i]
			count[b]++
		}
		srcK, srcT, dstK, dstT = dstK, dstT, srcK, srcT
	}
	if &srcK[0] != &keys[0] {
		copy(keys, srcK)
		copy(tags, srcT)
	}
}
