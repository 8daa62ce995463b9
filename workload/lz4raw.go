package workload

import (
	"errors"
	"fmt"
	_ "unsafe" // for go:linkname, below

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// parquet-go (v0.32.0, the latest) cannot read LZ4_RAW pages, the codec
// DuckDB writes for COMPRESSION lz4: its LZ4_RAW codec decodes into
// a new buffer whenever the one it is given is shorter than three times
// the compressed page, and the page decoder then keeps its own buffer,
// unwritten, when the lengths agree — values from other pages, or a
// decoding error (parquet-go issue #608, fix proposed in pull request
// #609). Given corrupt data, the same codec doubles its buffer until
// memory runs out.
//
// Until a release fixes it, workload puts its own LZ4_RAW decoder in
// parquet-go's table of codecs (which parquet-go consults for every
// column chunk it reads): it decodes into the buffer it is given, whose
// length is the page's uncompressed size as the page header declares it
// (which checkPages has bounded), and reports corrupt data as an error.
// Writing is unchanged (the original codec's Encode). TestLZ4RawCodec
// fails if the table stops holding this decoder.

// pqCodecs is parquet-go's table of compression codecs, indexed by their
// code in the Parquet format.
//
//go:linkname pqCodecs github.com/parquet-go/parquet-go.compressionCodecs
var pqCodecs [format.Lz4Raw + 1]compress.Codec

func init() {
	if c := pqCodecs[format.Lz4Raw]; c != nil && c.CompressionCodec() == format.Lz4Raw {
		pqCodecs[format.Lz4Raw] = lz4Raw{c}
	}
}

// lz4Raw is parquet-go's LZ4_RAW codec with a decoder that writes into the
// buffer it is given.
type lz4Raw struct{ compress.Codec }

// Decode decompresses the LZ4 block src into dst, whose length is the
// size the page declares, and returns the part it filled. A block that
// does not decode, or decodes to more than that size, is an error.
func (lz4Raw) Decode(dst, src []byte) ([]byte, error) {
	if len(dst) == 0 {
		// An empty page, or a size parquet-go did not pass: only a block
		// that holds nothing fits.
		var probe [64]byte
		if n, err := lz4.UncompressBlock(src, probe[:]); err != nil || n > 0 {
			return dst[:0], errors.New("LZ4_RAW page: the data does not fit the page's declared size of 0 bytes")
		}
		return dst[:0], nil
	}
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return dst[:0], fmt.Errorf("LZ4_RAW page: corrupt data, or more than the page's declared %d bytes: %v", len(dst), err)
	}
	return dst[:n], nil
}
