package workload

import (
	"errors"
	"fmt"
	"io"
)

// Parquet's metadata is Thrift (compact protocol), and parquet-go allocates
// lists and byte strings at the sizes the input declares before it reads
// them: a corrupt footer or page header declaring a list of 2^31 row groups
// would exhaust memory. checkThrift walks a compact-protocol struct without
// decoding it and rejects any declared size that the bytes at hand cannot
// hold (every element takes at least one byte), so that a file that passes
// can only make parquet-go allocate about as much as the file's size.

var errThrift = errors.New("corrupt Thrift metadata")

// maxThriftDepth bounds the nesting of structs and containers.
const maxThriftDepth = 32

// thriftWalker walks compact-protocol Thrift in b.
type thriftWalker struct {
	b   []byte
	i   int
	top map[int32]int64 // integer and bool (1, 0) fields of the top struct (id) and of its structs (parent<<16 | id)
}

func (w *thriftWalker) byte() (byte, error) {
	if w.i >= len(w.b) {
		return 0, io.ErrUnexpectedEOF
	}
	c := w.b[w.i]
	w.i++
	return c, nil
}

func (w *thriftWalker) uvarint() (uint64, error) {
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := w.byte()
		if err != nil {
			return 0, err
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errThrift
}

// size reads a declared size and checks that perElem bytes each fit in what
// is left.
func (w *thriftWalker) size(n uint64, perElem int) (int, error) {
	if n > uint64(len(w.b)-w.i)/uint64(perElem) {
		return 0, fmt.Errorf("%w: %d elements declared, %d bytes left", errThrift, n, len(w.b)-w.i)
	}
	return int(n), nil
}

// minSize is the fewest bytes an element of a compact type takes.
func minSize(t byte) int {
	if t == 7 { // double
		return 8
	}
	return 1
}

// value skips one value of compact type t; parent is the id of the field
// it is the value of, in the top struct, or -1.
func (w *thriftWalker) value(t byte, depth int, parent int32) (int64, error) {
	if depth > maxThriftDepth {
		return 0, fmt.Errorf("%w: nested too deep", errThrift)
	}
	switch t {
	case 1, 2: // bool in a field header
		return 0, nil
	case 3: // byte
		c, err := w.byte()
		return int64(int8(c)), err
	case 4, 5, 6: // i16, i32, i64: zigzag varint
		u, err := w.uvarint()
		return int64(u>>1) ^ -int64(u&1), err
	case 7: // double
		_, err := w.size(1, 8)
		w.i += 8
		return 0, err
	case 8: // binary
		u, err := w.uvarint()
		if err != nil {
			return 0, err
		}
		n, err := w.size(u, 1)
		w.i += n
		return 0, err
	case 9, 10: // list, set
		h, err := w.byte()
		if err != nil {
			return 0, err
		}
		u, et := uint64(h>>4), h&0x0f
		if u == 15 {
			if u, err = w.uvarint(); err != nil {
				return 0, err
			}
		}
		n, err := w.size(u, minSize(et))
		if err != nil {
			return 0, err
		}
		for range n {
			if et == 1 || et == 2 { // bools in a list take a byte each
				if _, err := w.byte(); err != nil {
					return 0, err
				}
				continue
			}
			if _, err := w.value(et, depth+1, -1); err != nil {
				return 0, err
			}
		}
		return 0, nil
	case 11: // map
		u, err := w.uvarint()
		if err != nil || u == 0 {
			return 0, err
		}
		n, err := w.size(u, 2)
		if err != nil {
			return 0, err
		}
		kv, err := w.byte()
		if err != nil {
			return 0, err
		}
		for range n {
			for _, et := range [2]byte{kv >> 4, kv & 0x0f} {
				if et == 1 || et == 2 {
					_, err = w.byte()
				} else {
					_, err = w.value(et, depth+1, -1)
				}
				if err != nil {
					return 0, err
				}
			}
		}
		return 0, nil
	case 12: // struct
		return 0, w.structure(depth+1, parent)
	}
	return 0, fmt.Errorf("%w: unknown type %d", errThrift, t)
}

// structure skips a struct and records its integer and bool fields when it is the
// top struct (key: id) or one of its fields (parent >= 0; key: parent<<16 | id).
func (w *thriftWalker) structure(depth int, parent int32) error {
	var id int16
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		t := h & 0x0f
		if t == 0 {
			return nil
		}
		if d := h >> 4; d != 0 {
			id += int16(d)
		} else {
			v, err := w.value(4, depth, -1)
			if err != nil {
				return err
			}
			id = int16(v)
		}
		child := int32(-1)
		if depth == 0 {
			child = int32(id)
		}
		v, err := w.value(t, depth, child)
		if err != nil {
			return err
		}
		if t == 1 {
			v = 1 // a bool field: true (1) or false (2, 0)
		}
		if t >= 1 && t <= 6 && t != 3 {
			switch {
			case depth == 0:
				w.top[int32(id)] = v
			case parent >= 0:
				w.top[parent<<16|int32(id)] = v
			}
		}
	}
}

// checkThrift checks the compact-protocol struct at the start of b and
// returns its length in bytes and its integer and bool (1 or 0) fields:
// those of the struct (key: the field id) and of the structs among its
// fields (key: the field's id << 16 | the id within).
func checkThrift(b []byte) (int, map[int32]int64, error) {
	w := thriftWalker{b: b, top: make(map[int32]int64)}
	if err := w.structure(0, -1); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, fmt.Errorf("%w: truncated", errThrift)
		}
		return 0, nil, err
	}
	return w.i, w.top, nil
}
