package report

import "math"

// Metrics sorts the waits and the bounded slowdowns of every job, each
// tagged with its job's cell (see column); an LSD radix sort does it in a
// few linear passes where a comparison sort of a million values takes a
// hundred milliseconds.

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
	// Every byte's counts in one read of the keys: a pass reorders the
	// keys but never changes how many have a given byte. Written out, and
	// in 32 bits, the counting takes a third less time than as a loop.
	var counts [8][256]uint32
	for _, k := range keys {
		counts[0][byte(k)]++
		counts[1][byte(k>>8)]++
		counts[2][byte(k>>16)]++
		counts[3][byte(k>>24)]++
		counts[4][byte(k>>32)]++
		counts[5][byte(k>>40)]++
		counts[6][byte(k>>48)]++
		counts[7][byte(k>>56)]++
	}
	for shift := uint(0); shift < 64; shift += 8 {
		count := &counts[shift/8]
		if int(count[byte(src[0]>>shift)]) == n {
			continue // every key has this byte: nothing to reorder
		}
		var pos uint32
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
