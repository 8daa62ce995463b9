package report

import (
	"encoding/base64"
	"encoding/binary"
	"slices"
)

// base64Pairs maps twelve bits to their two characters of standard
// base64 (RFC 4648), the first in the high byte.
var base64Pairs = func() (t [1 << 12]uint16) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		t[i] = uint16(alphabet[i>>6])<<8 | uint16(alphabet[i&63])
	}
	return t
}()

// appendBase64 appends src in standard base64 (with padding), as
// base64.StdEncoding.AppendEncode does, byte for byte. Six bytes become
// eight characters at a time, through four look-ups of twelve bits each,
// where the standard encoder makes each character from six bits: the
// megabytes of the page's Gantt data take half the time. The last bytes
// (fewer than eight) are the standard encoder's: they start at a multiple
// of three bytes, where base64's groups start.
func appendBase64(dst, src []byte) []byte {
	n := base64.StdEncoding.EncodedLen(len(src))
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	i, j := 0, 0
	for ; len(src)-i >= 8; i, j = i+6, j+8 {
		v := binary.BigEndian.Uint64(src[i:])
		binary.BigEndian.PutUint64(out[j:], uint64(base64Pairs[v>>52])<<48|uint64(base64Pairs[v>>40&0xfff])<<32|
			uint64(base64Pairs[v>>28&0xfff])<<16|uint64(base64Pairs[v>>16&0xfff]))
	}
	base64.StdEncoding.Encode(out[j:], src[i:])
	return dst[:len(dst)+n]
}
