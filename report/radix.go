package report

// A summary sorts the waits and the bounded slowdowns of every job, each
// tagged with its job's class (see Metrics.classDists); an LSD radix sort
// does it in a few linear passes where a comparison sort of a million
// values takes a hundred milliseconds.

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
