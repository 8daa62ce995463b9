package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
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
