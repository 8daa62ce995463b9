package report

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"testing"

	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// pixelDiff compares two images of the same size: the largest difference
// of a channel, and the mean difference over all channels of all pixels.
func pixelDiff(t *testing.T, a, b image.Image) (worst int, mean float64) {
	t.Helper()
	if a.Bounds() != b.Bounds() {
		t.Fatalf("bounds %v and %v", a.Bounds(), b.Bounds())
	}
	var sum, n float64
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			for _, d := range []int{int(ar>>8) - int(br>>8), int(ag>>8) - int(bg>>8), int(ab>>8) - int(bb>>8)} {
				d = max(d, -d)
				worst = max(worst, d)
				sum += float64(d)
				n++
			}
		}
	}
	return worst, sum / n
}

// TestFastCanvasMatchesVgimg draws the same things on vgimg's canvas and on
// fastCanvas: the direct paths must give the same picture up to the last
// bits of anti-aliased edges, and the paths it leaves to vgimg the same
// pixels.
func TestFastCanvasMatchesVgimg(t *testing.T) {
	face := font.DefaultCache.Lookup(plot.DefaultFont, vg.Points(11))
	blue := color.RGBA{R: 31, G: 119, B: 180, A: 255}
	translucent := color.NRGBA{R: 200, G: 0, B: 0, A: 128}
	rect := func(x0, y0, x1, y1 vg.Length) vg.Path {
		var p vg.Path
		p.Move(vg.Point{X: x0, Y: y0})
		p.Line(vg.Point{X: x1, Y: y0})
		p.Line(vg.Point{X: x1, Y: y1})
		p.Line(vg.Point{X: x0, Y: y1})
		p.Close()
		return p
	}
	steps := func() vg.Path {
		var p vg.Path
		p.Move(vg.Point{X: 10, Y: 20})
		y := vg.Length(20)
		for x := vg.Length(10); x < 200; x += 7.3 {
			p.Line(vg.Point{X: x, Y: y})
			y = 20 + vg.Length(math.Mod(float64(x)*13.7, 60))
			p.Line(vg.Point{X: x, Y: y})
		}
		return p
	}
	cases := []struct {
		name        string
		draw        func(c vg.Canvas)
		worst       int     // largest channel difference allowed
		mean        float64 // mean channel difference allowed
		sameAsVgimg bool
	}{
		{"opaque rectangles, off the pixel grid", func(c vg.Canvas) {
			c.SetColor(blue)
			c.Fill(rect(10.3, 12.7, 150.2, 80.9))
			c.Fill(rect(160, 10, 170.25, 100))
		}, 2, 0.01, false},
		{"a translucent rectangle over another", func(c vg.Canvas) {
			c.SetColor(blue)
			c.Fill(rect(10, 10, 100, 100))
			c.SetColor(translucent)
			c.Fill(rect(50.4, 50.4, 150.6, 90.1))
		}, 2, 0.01, false},
		{"text", func(c vg.Canvas) {
			c.SetColor(color.Black)
			c.FillString(face, vg.Point{X: 20.3, Y: 40.6}, "Queue over time · 1995 (h)")
		}, 0, 0, false},
		{"text again, glyphs drawn before at the same fractions of a pixel and others", func(c vg.Canvas) {
			c.SetColor(color.Black)
			for i := range 12 {
				// 60 pt are 100 pixels: the same fractions (cached glyphs);
				// 30.2 pt are not.
				x, y := vg.Length(5.13+float64(i%3)*60), vg.Length(10+float64(i/3)*30.2)
				c.FillString(face, vg.Point{X: x, Y: y}, "0.25 1995 (h)")
			}
		}, 0, 0, false},
		{"horizontal and vertical steps", func(c vg.Canvas) {
			c.SetColor(blue)
			c.SetLineWidth(vg.Points(1))
			c.Stroke(steps())
		}, 128, 0.1, false}, // square joins where vgimg's are round
		{"rotated text is vgimg's", func(c vg.Canvas) {
			c.SetColor(color.Black)
			c.Push()
			c.Translate(vg.Point{X: 30, Y: 30})
			c.Rotate(math.Pi / 2)
			c.FillString(face, vg.Point{}, "running jobs")
			c.Pop()
		}, 0, 0, true},
		{"dashed lines are vgimg's", func(c vg.Canvas) {
			c.SetColor(blue)
			c.SetLineWidth(vg.Points(1))
			c.SetLineDash([]vg.Length{vg.Points(4), vg.Points(2)}, 0)
			c.Stroke(steps())
		}, 0, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, h := 3*vg.Inch, 2*vg.Inch
			ref := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI), vgimg.UseBackgroundColor(color.White))
			tc.draw(ref)
			fast := newFastCanvas(w, h, PNGDPI)
			defer fast.close()
			tc.draw(fast)
			worst, mean := pixelDiff(t, ref.Image(), fast.Image())
			t.Logf("differs from vgimg by up to %d, %.4f on average", worst, mean)
			if tc.sameAsVgimg && worst != 0 {
				t.Fatalf("differs from vgimg by up to %d", worst)
			}
			if worst > tc.worst || mean > tc.mean {
				t.Errorf("differs from vgimg by up to %d, %.3f on average; want at most %d, %.3f", worst, mean, tc.worst, tc.mean)
			}
			// Something was drawn.
			white := image.NewRGBA(fast.Image().Bounds())
			for i := range white.Pix {
				white.Pix[i] = 0xff
			}
			if _, m := pixelDiff(t, fast.Image(), white); m == 0 {
				t.Error("nothing drawn")
			}
		})
	}
}

// TestFastCanvasStrokeCovers checks strokeLines' coverage by hand: a
// horizontal line 1.5 pixels wide centred on the middle of a row covers
// that row fully and the rows above and below it by a quarter.
func TestFastCanvasStrokeCovers(t *testing.T) {
	const dpi = 72 // a point is a pixel
	c := newFastCanvas(20, 10, dpi)
	defer c.close()
	c.SetColor(color.Black)
	c.SetLineWidth(1.5)
	var p vg.Path
	// y up from the bottom: pixel rows from the top are 10 - y.
	p.Move(vg.Point{X: 2, Y: 10 - 4.5})
	p.Line(vg.Point{X: 18, Y: 10 - 4.5})
	c.Stroke(p)
	img := c.Image()
	for _, tc := range []struct {
		row  int
		want uint8 // grey level: 255 × (1 − coverage)
	}{{2, 255}, {3, 191}, {4, 0}, {5, 191}, {6, 255}} {
		r, _, _, _ := img.At(10, tc.row).RGBA()
		if got := uint8(r >> 8); int(got)-int(tc.want) > 1 || int(tc.want)-int(got) > 1 {
			t.Errorf("row %d: grey %d, want %d", tc.row, got, tc.want)
		}
	}
	// Square caps: the line reaches 0.75 pixel beyond its ends.
	if r, _, _, _ := img.At(1, 4).RGBA(); uint8(r>>8) > 70 || uint8(r>>8) < 58 {
		t.Errorf("left cap: grey %d, want about 64", r>>8)
	}
}

// TestBlendOpaque: blendOpaque gives the pixels blend gives for an opaque
// colour, over opaque and translucent pixels, at every coverage.
func TestBlendOpaque(t *testing.T) {
	colours := [][3]uint32{{0, 0, 0}, {0xffff, 0xffff, 0xffff}, {31 * 0x101, 119 * 0x101, 180 * 0x101}}
	for _, c := range colours {
		for _, dst := range [][4]byte{{255, 255, 255, 255}, {10, 200, 30, 255}, {40, 20, 0, 128}, {0, 0, 0, 0}} {
			for k := 0; k <= 1000; k++ {
				cov := float64(k) / 1000
				want, got := dst, dst
				blend(want[:], c[0], c[1], c[2], 0xffff, cov)
				blendOpaque(got[:], c[0], c[1], c[2], cov)
				if got != want {
					t.Fatalf("colour %v over %v at %.3f: %v, want %v", c, dst, cov, got, want)
				}
			}
		}
	}
}

// TestGlyphMaskMatchesFace rasterises glyphs from their cached outlines
// (glyphMask) and with the face's own Glyph, at every size the figures use,
// at fractions of a pixel all over it: bounds, mask and advance must be
// the same, byte for byte.
func TestGlyphMaskMatchesFace(t *testing.T) {
	fc := newFastCanvas(vg.Points(72), vg.Points(72), PNGDPI)
	defer fc.close()
	for _, size := range []vg.Length{8, 9, 10, 11, 12} {
		f := font.DefaultCache.Lookup(font.From(sansFont, size), size)
		face := f.FontFace(fc.dpi)
		key := faceKey{font: f.Font, face: f.Face}
		for _, c := range "0123456789.,:–−%() abcxyzABCWQgjy·×≤μ" {
			o := outlineOf(f, key, fc.dpi, face, c)
			if o == nil {
				t.Fatalf("size %v: no outline for %q", size, c)
			}
			for _, fx := range []fixed.Int26_6{0, 1, 13, 32, 50, 63} {
				for _, fy := range []fixed.Int26_6{0, 7, 31, 63} {
					at := fixed.Point26_6{X: fx, Y: fy}
					dr, mask, maskp, advance, _ := face.Glyph(at, c)
					g := fc.glyphMask(o, at)
					if g.dr != dr || g.advance != advance || g.maskp != maskp {
						t.Fatalf("size %v, %q at %v: bounds %v, advance %v; the face's %v, %v", size, c, at, g.dr, g.advance, dr, advance)
					}
					want, _ := mask.(*image.Alpha)
					got, _ := g.mask.(*image.Alpha)
					if want == nil || got == nil || got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
						t.Fatalf("size %v, %q at %v: the mask differs from the face's", size, c, at)
					}
				}
			}
		}
	}
}
