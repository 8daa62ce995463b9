package report

import (
	"bytes"
	"compress/zlib"
	"image"
	"image/color"
	"image/png"
	"io"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestEncodePNG: the PNG decodes to the same pixels, opaque or not.
func TestEncodePNG(t *testing.T) {
	for _, alpha := range []uint8{255, 128} {
		img := image.NewRGBA(image.Rect(0, 0, 37, 23))
		for y := 0; y < 23; y++ {
			for x := 0; x < 37; x++ {
				img.SetRGBA(x, y, color.RGBA{R: uint8(x * 7), G: uint8(y * 11), B: uint8(x * y), A: 255})
			}
		}
		img.SetRGBA(3, 4, color.RGBA{R: alpha / 2, G: 0, B: 0, A: alpha})
		var buf bytes.Buffer
		if err := encodePNG(&buf, img); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("alpha %d: %v", alpha, err)
		}
		for y := 0; y < 23; y++ {
			for x := 0; x < 37; x++ {
				r1, g1, b1, a1 := got.At(x, y).RGBA()
				r2, g2, b2, a2 := img.At(x, y).RGBA()
				// image/png's own round trip of a translucent pixel
				// (premultiplied, then not) may be off by one level.
				if far(r1, r2) || far(g1, g2) || far(b1, b2) || far(a1, a2) {
					t.Fatalf("alpha %d: pixel (%d, %d) is %v, want %v", alpha, x, y, got.At(x, y), img.At(x, y))
				}
			}
		}
	}
}

// TestDecimate: a dense line keeps, in every column, its first, lowest,
// highest and last vertex, in order; a sparse line is left as it is.
func TestDecimate(t *testing.T) {
	sparse := make([]vg.Point, 100)
	for i := range sparse {
		sparse[i] = vg.Point{X: vg.Length(i), Y: vg.Length(i % 7)}
	}
	if got := decimate(sparse, 0.5); len(got) != len(sparse) {
		t.Errorf("a sparse line went from %d to %d vertices", len(sparse), len(got))
	}
	var dense []vg.Point
	for i := 0; i < 10000; i++ {
		dense = append(dense, vg.Point{X: vg.Length(i) / 100, Y: vg.Length((i * 37) % 101)})
	}
	got := decimate(dense, 0.5)
	if len(got) >= len(dense)/10 || got[0] != dense[0] || got[len(got)-1] != dense[len(dense)-1] {
		t.Fatalf("%d vertices of %d, ends %v %v", len(got), len(dense), got[0], got[len(got)-1])
	}
	// Per column, the same lowest and highest points.
	type ext struct{ lo, hi vg.Length }
	cols := func(pts []vg.Point) map[int]ext {
		m := map[int]ext{}
		for _, p := range pts {
			c := int(p.X / 0.5)
			e, ok := m[c]
			if !ok {
				e = ext{p.Y, p.Y}
			}
			m[c] = ext{min(e.lo, p.Y), max(e.hi, p.Y)}
		}
		return m
	}
	want, have := cols(dense), cols(got)
	for c, e := range want {
		if have[c] != e {
			t.Errorf("column %d: extent %v, want %v", c, have[c], e)
		}
	}
	for i := 1; i < len(got); i++ {
		if got[i].X < got[i-1].X {
			t.Fatalf("vertex %d goes back: %v after %v", i, got[i], got[i-1])
		}
	}
}

// far reports whether two 16-bit colour values differ by more than one
// 8-bit level.
func far(a, b uint32) bool { return a>>8 > b>>8+1 || b>>8 > a>>8+1 }

// inflate decompresses a zlib stream with the standard library, which
// checks the Adler-32 checksum too.
func inflate(t testing.TB, z []byte) []byte {
	t.Helper()
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestZlibRLE: every kind of run zlibRLE writes comes back as it went in,
// with a checksum zlib accepts, and a long run of zeros takes a few bytes.
func TestZlibRLE(t *testing.T) {
	long := make([]byte, 100_000)
	pixels := bytes.Repeat([]byte{200, 30, 7}, 1000) // a colour repeated: distance 3
	for _, tc := range []struct {
		name string
		in   []byte
		max  int // most bytes of output, 0: no bound
	}{
		{"empty", nil, 0},
		{"one byte", []byte{42}, 0},
		{"short runs, 2 and 3", []byte{1, 1, 2, 2, 2, 3, 3, 3, 3, 9}, 0},
		{"runs 258 and around it", bytes.Repeat([]byte{5}, 1+258+259+260+261+3), 0},
		{"long zeros", long, 700}, // 388 matches of 258 bytes, 13 bits each
		{"repeated pixels", pixels, 100},
		{"all byte values", func() []byte {
			b := make([]byte, 1024)
			for i := range b {
				b[i] = byte(i * 7)
			}
			return b
		}(), 0},
		{"a large Adler-32 sum", bytes.Repeat([]byte{255}, 5_000_000), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := zlibRLE(nil, tc.in)
			if got := inflate(t, z); !bytes.Equal(got, tc.in) {
				t.Fatalf("round trip: %d bytes back for %d", len(got), len(tc.in))
			}
			if tc.max > 0 && len(z) > tc.max {
				t.Errorf("%d bytes compressed to %d, want at most %d", len(tc.in), len(z), tc.max)
			}
		})
	}
}

// FuzzZlibRLE: whatever the bytes, zlib inflates zlibRLE's stream back to
// them.
func FuzzZlibRLE(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1})
	f.Add(bytes.Repeat([]byte{9}, 300))
	f.Fuzz(func(t *testing.T, in []byte) {
		if got := inflate(t, zlibRLE(nil, in)); !bytes.Equal(got, in) {
			t.Fatalf("round trip of %d bytes gave %d", len(in), len(got))
		}
	})
}

// TestRLEWriterPieces: bytes written in pieces, some of them as zeros,
// inflate to the pieces end to end, with a checksum zlib accepts (a PNG
// decoder may never check it).
func TestRLEWriterPieces(t *testing.T) {
	row := []byte{2, 0, 0, 0, 7, 7, 7, 7, 1, 2, 3, 1, 2, 3, 1, 2, 3, 0, 0}
	for _, tc := range []struct {
		name   string
		pieces []any // []byte for write, int for zeros
	}{
		{"nothing", nil},
		{"zeros alone", []any{5}},
		{"zeros of every short length", []any{1, []byte{9}, 2, []byte{9}, 3, []byte{9}, 4, []byte{9}, 259, []byte{9}, 260, []byte{9}, 261}},
		{"rows and blank rows", []any{row, []byte{2}, len(row) - 1, row, row, []byte{2}, 1000, row}},
		{"a long blank", []any{[]byte{255, 255}, 3_000_000, []byte{255}}},
		{"zeros going on from zeros", []any{[]byte{5, 0}, 1, []byte{0, 0}, 2, 3, []byte{0}, 300, 4, []byte{7}, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := newRLEWriter(nil)
			var want []byte
			for _, p := range tc.pieces {
				switch p := p.(type) {
				case []byte:
					z.write(p)
					want = append(want, p...)
				case int:
					z.zeros(p)
					want = append(want, make([]byte, p)...)
				}
			}
			if got := inflate(t, z.close()); !bytes.Equal(got, want) {
				t.Fatalf("round trip: %d bytes back for %d", len(got), len(want))
			}
		})
	}
}

// FuzzRLEWriterPieces: whatever the bytes, cut into pieces some of which
// are written as zeros, zlib inflates the stream back to them.
func FuzzRLEWriterPieces(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1}, uint8(3))
	f.Add(bytes.Repeat([]byte{9}, 300), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		z := newRLEWriter(nil)
		var want []byte
		for i, n := 0, max(int(cut), 1); len(in) > 0; i++ {
			p := in[:min(n, len(in))]
			in = in[len(p):]
			if i%2 == 1 {
				// A piece of zeros as long as the bytes it stands for.
				z.zeros(len(p))
				want = append(want, make([]byte, len(p))...)
				continue
			}
			z.write(p)
			want = append(want, p...)
		}
		if got := inflate(t, z.close()); !bytes.Equal(got, want) {
			t.Fatalf("round trip of %d bytes gave %d", len(want), len(got))
		}
	})
}
