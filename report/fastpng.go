package report

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"math/bits"
)

// encodePNG writes img as an 8-bit RGB PNG when it is opaque, else as
// image/png does. Plots are mostly flat colour: every row is filtered with
// PNG's Up filter (each byte less the one above it), which leaves more
// than nine bytes in ten zero, and compressed as runs and literals
// (rleWriter), instead of trying the five filters on every row and
// searching for matches as image/png does, which took most of the time of
// writing a plot's PNG. The image is read once, a row at a time: each row
// is filtered into a buffer of one row and compressed from there, and a
// row equal to the one above is written as a run of zeros without being
// filtered. The output depends only on the image.
func encodePNG(w io.Writer, img *image.RGBA) error {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, RGB; compression, filter and interlace 0
	writeChunk(&out, "IHDR", ihdr[:])

	// The rows, filtered with Up: each byte less the one above it. A row
	// equal to the one above (blank margins, flat areas) filters to zeros,
	// as do the pixels equal to the ones above. Only the pixels that
	// differ from the ones above need their alpha checked: the others
	// have the alpha of pixels checked before them.
	stride := 1 + 3*width
	cur := make([]byte, stride)
	cur[0] = 2 // Up
	z := newRLEWriter(make([]byte, 0, stride*height/8))
	var up []byte
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):][:4*width]
		switch {
		case up == nil:
			if !opaque(row) {
				return encodeTranslucent(w, img)
			}
			for x, k := 0, 1; x < width; x, k = x+1, k+3 {
				p := row[4*x : 4*x+3 : 4*x+3]
				c := cur[k : k+3 : k+3]
				c[0], c[1], c[2] = p[0], p[1], p[2]
			}
		case bytes.Equal(row, up):
			z.write(cur[:1])
			z.zeros(stride - 1)
			continue
		default:
			// Sixteen pixels at a time: those equal to the ones above
			// are runs of zeros, written as such, the others filtered
			// into cur and written from there, as many blocks at once as
			// follow each other.
			const block = 16
			zeros, from := 0, 0 // zeros to write; cur[from:k] to write
			for x0 := 0; x0 < width; x0 += block {
				x1 := min(x0+block, width)
				k := 1 + 3*x0
				if bytes.Equal(row[4*x0:4*x1], up[4*x0:4*x1]) {
					if from >= 0 {
						z.write(cur[from:k])
						from = -1
					}
					zeros += 3 * (x1 - x0)
					continue
				}
				if !opaque(row[4*x0 : 4*x1]) {
					return encodeTranslucent(w, img)
				}
				if zeros > 0 {
					z.zeros(zeros)
					zeros = 0
				}
				if from < 0 {
					from = k
				}
				for x := x0; x < x1; x, k = x+1, k+3 {
					p := row[4*x : 4*x+3 : 4*x+3]
					q := up[4*x : 4*x+3 : 4*x+3]
					c := cur[k : k+3 : k+3]
					c[0], c[1], c[2] = p[0]-q[0], p[1]-q[1], p[2]-q[2]
				}
			}
			if from >= 0 {
				z.write(cur[from:])
			}
			z.zeros(zeros)
			up = row
			continue
		}
		z.write(cur)
		up = row
	}
	writeChunk(&out, "IDAT", z.close())
	writeChunk(&out, "IEND", nil)
	_, err := w.Write(out.Bytes())
	return err
}

// encodeTranslucent writes img as image/png does, for images with pixels
// that are not opaque.
func encodeTranslucent(w io.Writer, img *image.RGBA) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}

// opaque reports whether every pixel of an RGBA row has alpha 0xff.
func opaque(row []byte) bool {
	const alpha = 0xff000000ff000000
	i := 0
	for ; len(row)-i >= 8; i += 8 {
		if binary.LittleEndian.Uint64(row[i:])&alpha != alpha {
			return false
		}
	}
	for i += 3; i < len(row); i += 4 {
		if row[i] != 0xff {
			return false
		}
	}
	return true
}

// writeChunk appends a PNG chunk: length, type, data, CRC of type and data.
func writeChunk(out *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	out.WriteString(typ)
	out.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	out.Write(n[:])
}

// zlibRLE appends to dst the zlib stream (RFC 1950) of src deflated as
// runs and literals (see rleWriter).
func zlibRLE(dst, src []byte) []byte {
	z := newRLEWriter(dst)
	z.write(src)
	return z.close()
}

// rleWriter deflates bytes as runs and literals into a zlib stream (RFC
// 1950): a byte equal to the one before it, three times or more in a row,
// is a match at distance 1, any other byte a literal, in one block with
// deflate's fixed Huffman codes (RFC 1951 §3.2.6). That is zlib's Z_RLE
// strategy with Z_FIXED codes. On a plot's filtered rows it is several
// times faster than the fastest LZ77 level, for a stream about a quarter
// larger: its runs are found a machine word at a time, and its Adler-32
// checksum advances over a whole run at once. The bytes come in pieces
// (write, zeros); a match never reaches back before its piece, but a run
// of zeros may go on from a zero that ended the piece before.
type rleWriter struct {
	w    bitWriter
	a, b uint64 // Adler-32's sums, reduced when b grows large
	// zero is whether the last byte written was a zero, which a run of
	// zeros may then go on from.
	zero bool
}

// adlerMod is Adler-32's modulus.
const adlerMod = 65521

// newRLEWriter returns an rleWriter that appends to dst.
func newRLEWriter(dst []byte) *rleWriter {
	z := &rleWriter{w: bitWriter{out: append(dst, 0x78, 0x01)}, a: 1} // deflate, 32 KiB window, fastest
	z.w.bits(1|1<<1, 3)                                               // the final block, fixed codes
	return z
}

// write deflates src.
func (z *rleWriter) write(src []byte) {
	const mod = adlerMod
	w := &z.w
	a, b := z.a, z.b
	for i := 0; i < len(src); {
		c := src[i]
		w.bits(uint64(fixedLit[c].code), uint(fixedLit[c].len))
		a += uint64(c)
		b += a
		i++
		// A run or a repeated pixel needs its next three bytes: most
		// literals are told apart by a byte or two, without a call.
		if i+3 > len(src) {
			continue
		}
		if src[i] == c && src[i+1] == c && src[i+2] == c {
			n := runOf(src[i:], c)
			// Adler-32 over n bytes c: a grows by c each byte, b by each a.
			b = (b + a%mod*uint64(n) + uint64(c)*(uint64(n)*uint64(n+1)/2%mod)) % mod
			a = (a + uint64(c)*uint64(n)) % mod
			i += w.matches(n, 0)
		} else if i >= 3 && src[i] == src[i-3] && src[i+1] == src[i-2] && src[i+2] == src[i-1] {
			// A pixel repeated: the bytes equal to those three before.
			if n := commonPrefix(src[i:], src[i-3:]); n >= 3 {
				n = w.matches(n, 2) // distance code 2: distance 3
				for _, c := range src[i : i+n] {
					a += uint64(c)
					b += a
				}
				i += n
			}
		}
		if b >= 1<<60 {
			a, b = a%mod, b%mod
		}
	}
	z.a, z.b = a, b
	if len(src) > 0 {
		z.zero = src[len(src)-1] == 0
	}
}

// zeros deflates n zero bytes, as write does, or as matches that go on
// from the last byte written when it was a zero.
func (z *rleWriter) zeros(n int) {
	if n <= 0 {
		return
	}
	// Adler-32: a grows by nothing, b by a for each byte.
	z.b = (z.b + z.a%adlerMod*uint64(n)) % adlerMod
	w := &z.w
	if !z.zero {
		w.bits(uint64(fixedLit[0].code), uint(fixedLit[0].len))
		n--
		z.zero = true
	}
	if n >= 3 {
		n -= w.matches(n, 0)
	}
	for ; n > 0; n-- {
		w.bits(uint64(fixedLit[0].code), uint(fixedLit[0].len))
	}
}

// close ends the stream and returns it.
func (z *rleWriter) close() []byte {
	w := &z.w
	w.bits(uint64(fixedLit[256].code), uint(fixedLit[256].len)) // end of block
	w.flush()
	return binary.BigEndian.AppendUint32(w.out, uint32(z.b%adlerMod)<<16|uint32(z.a%adlerMod))
}

// runOf returns how many bytes at the start of s equal c.
func runOf(s []byte, c byte) int {
	n := 0
	pat := uint64(c) * 0x0101010101010101
	for len(s)-n >= 8 {
		if x := binary.LittleEndian.Uint64(s[n:]) ^ pat; x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// fixedCode is a Huffman code of deflate's fixed codes, its bits reversed
// to be written least significant first.
type fixedCode struct {
	code uint16
	len  uint8
}

// fixedLit holds the fixed codes of the literal/length symbols 0–287.
var fixedLit = func() (t [288]fixedCode) {
	for s := range t {
		var c, n int
		switch {
		case s < 144:
			c, n = 0x30+s, 8
		case s < 256:
			c, n = 0x190+s-144, 9
		case s < 280:
			c, n = s-256, 7
		default:
			c, n = 0xc0+s-280, 8
		}
		t[s] = fixedCode{code: bits.Reverse16(uint16(c)) >> (16 - n), len: uint8(n)}
	}
	return t
}()

// Deflate's length symbols 257–285: the shortest length of each, and its
// extra bits.
var (
	lengthBase  = [29]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
)

// bitWriter writes a deflate bit stream, least significant bit first.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint
}

// bits writes the n ≤ 32 low bits of v.
func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	if w.n >= 32 {
		w.out = binary.LittleEndian.AppendUint32(w.out, uint32(w.acc))
		w.acc >>= 32
		w.n -= 32
	}
}

// matches writes matches covering n ≥ 3 bytes at the distance of
// distance code d, and returns how many bytes they cover: n, or n less one
// or two that are better written as literals.
func (w *bitWriter) matches(n int, d uint64) int {
	covered := 0
	for n-covered >= 3 {
		m := min(n-covered, 258)
		if r := n - covered - m; r == 1 || r == 2 {
			m -= 3 - r // leave a last match of 3 rather than literals
			if m < 3 {
				break
			}
		}
		w.match(m, d)
		covered += m
	}
	return covered
}

// match writes a match of length m, 3 ≤ m ≤ 258, at the distance of
// distance code d (0: 1, 2: 3).
func (w *bitWriter) match(m int, d uint64) {
	k := 28
	for lengthBase[k] > m {
		k--
	}
	c := fixedLit[257+k]
	w.bits(uint64(c.code), uint(c.len))
	if e := lengthExtra[k]; e > 0 {
		w.bits(uint64(m-lengthBase[k]), e)
	}
	w.bits(d>>4&1|d>>2&2|d&4|d<<2&8|d<<4&16, 5) // a fixed code of 5 bits, reversed
}

// commonPrefix returns how many bytes at the start of s and t are equal;
// t may overlap s, behind it.
func commonPrefix(s, t []byte) int {
	n := 0
	for len(s)-n >= 8 {
		if x := binary.LittleEndian.Uint64(s[n:]) ^ binary.LittleEndian.Uint64(t[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < len(s) && s[n] == t[n] {
		n++
	}
	return n
}

// flush writes the bits left, padded to a byte.
func (w *bitWriter) flush() {
	for w.n > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n = max(w.n, 8) - 8
	}
}
