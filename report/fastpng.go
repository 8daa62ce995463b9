package report

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"

	"github.com/klauspost/compress/zlib"
)

// encodePNG writes img as an 8-bit RGB PNG when it is opaque, else as
// image/png does. Plots are mostly flat colour: every row is filtered with
// PNG's Up filter (each byte less the one above it) and deflated at the
// fastest level, instead of trying the five filters on every row as
// image/png does, which took most of the time of writing a plot's PNG.
// The output depends only on the image.
func encodePNG(w io.Writer, img *image.RGBA) error {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):][:4*width]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0xff {
				enc := png.Encoder{CompressionLevel: png.BestSpeed}
				return enc.Encode(w, img)
			}
		}
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, RGB; compression, filter and interlace 0
	writeChunk(&out, "IHDR", ihdr[:])

	var data bytes.Buffer
	zw, err := zlib.NewWriterLevel(&data, zlib.BestSpeed)
	if err != nil {
		return err
	}
	cur := make([]byte, 1+3*width)
	zero := make([]byte, 1+3*width)
	zero[0] = 2 // Up
	var up []byte
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):][:4*width]
		switch {
		case up != nil && bytes.Equal(row, up):
			// A row like the one above (blank margins, flat areas) filters
			// to zeros.
			if _, err := zw.Write(zero); err != nil {
				return err
			}
		default:
			cur[0] = 2 // Up
			if up == nil {
				for x, k := 0, 1; x < width; x, k = x+1, k+3 {
					p := row[4*x : 4*x+3 : 4*x+3]
					c := cur[k : k+3 : k+3]
					c[0], c[1], c[2] = p[0], p[1], p[2]
				}
			} else {
				for x, k := 0, 1; x < width; x, k = x+1, k+3 {
					p := row[4*x : 4*x+3 : 4*x+3]
					q := up[4*x : 4*x+3 : 4*x+3]
					c := cur[k : k+3 : k+3]
					c[0], c[1], c[2] = p[0]-q[0], p[1]-q[1], p[2]-q[2]
				}
			}
			if _, err := zw.Write(cur); err != nil {
				return err
			}
		}
		up = row
	}
	if err := zw.Close(); err != nil {
		return err
	}
	writeChunk(&out, "IDAT", data.Bytes())
	writeChunk(&out, "IEND", nil)
	_, err = w.Write(out.Bytes())
	return err
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
