package report

import (
	"bytes"
	"image/color"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TestSVGCanvasMatchesVgsvg draws the same strokes on vgsvg's canvas and on
// svgCanvas: the documents must be the same bytes, and a path drawn that
// looks like a placeholder must make writeTo refuse rather than write
// another path's data.
func TestSVGCanvasMatchesVgsvg(t *testing.T) {
	line := func(pts ...[2]float64) vg.Path {
		var p vg.Path
		for i, q := range pts {
			pt := vg.Point{X: vg.Length(q[0]), Y: vg.Length(q[1])}
			if i == 0 {
				p.Move(pt)
			} else {
				p.Line(pt)
			}
		}
		return p
	}
	dense := func(n int, f func(i int) [2]float64) vg.Path {
		pts := make([][2]float64, n)
		for i := range pts {
			pts[i] = f(i)
		}
		return line(pts...)
	}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name    string
		draw    func(c vg.Canvas)
		refused bool
	}{
		{"a dense step line", func(c vg.Canvas) {
			c.SetColor(color.RGBA{R: 31, G: 119, B: 180, A: 255})
			c.SetLineWidth(vg.Points(0.9))
			c.Stroke(dense(500, func(i int) [2]float64 { return [2]float64{float64(i/2) * 1.337, 40 + math.Mod(float64(i)*17.123, 90)} }))
		}, false},
		{"numbers of every size and sign", func(c vg.Canvas) {
			c.Stroke(line([2]float64{0, math.Copysign(0, -1)}, [2]float64{1e-7, -1e-7}, [2]float64{123456.7, -98765.4321},
				[2]float64{0.000123456, 1e21}, [2]float64{12.345678, 99999.5}, [2]float64{-0.5, 100000}, [2]float64{3, 4},
				[2]float64{5, 6}, [2]float64{7, 8}))
		}, false},
		{"short paths, widths, states", func(c vg.Canvas) {
			c.Stroke(line([2]float64{1, 2}, [2]float64{3, 4}))
			c.Push()
			c.SetLineWidth(0)
			c.Stroke(dense(20, func(i int) [2]float64 { return [2]float64{float64(i), 1} }))
			c.Pop()
			c.Stroke(dense(20, func(i int) [2]float64 { return [2]float64{float64(i), 2} }))
			c.SetLineDash([]vg.Length{vg.Points(4), vg.Points(2)}, 1)
			c.Stroke(dense(20, func(i int) [2]float64 { return [2]float64{float64(i), 3} }))
		}, false},
		{"numbers that are not finite are vgsvg's", func(c vg.Canvas) {
			c.Stroke(dense(20, func(i int) [2]float64 { return [2]float64{float64(i), []float64{1, nan, inf, -inf}[i%4]} }))
		}, false},
		{"a path like a placeholder is refused", func(c vg.Canvas) {
			c.Stroke(dense(20, func(i int) [2]float64 { return [2]float64{float64(i), 1} }))
			c.Stroke(line([2]float64{nan, nan}, [2]float64{0, 0}))
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := vgsvg.New(200, 100)
			tc.draw(ref)
			var want bytes.Buffer
			if _, err := ref.WriteTo(&want); err != nil {
				t.Fatal(err)
			}
			fast := newSVGCanvas(200, 100)
			tc.draw(fast)
			var got bytes.Buffer
			ok := fast.writeTo(&got)
			if tc.refused {
				if ok {
					t.Fatal("writeTo took a path of its own for a placeholder")
				}
				return
			}
			if !ok {
				t.Fatal("writeTo refused its own placeholders")
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("differs from vgsvg:\ngot:  %.600s\nwant: %.600s", got.Bytes(), want.Bytes())
			}
		})
	}
}

// FuzzSVGCanvas: whatever the vertices of a long line, svgCanvas writes
// the bytes vgsvg writes.
func FuzzSVGCanvas(f *testing.F) {
	f.Add(0.0, -0.0, 1e-7, 123456.7, 99999.5, 1.0)
	f.Add(math.Inf(1), math.NaN(), 1e300, -5e-324, 0.1, 2.0)
	f.Fuzz(func(t *testing.T, x0, y0, x1, y1, dx, dy float64) {
		var p vg.Path
		p.Move(vg.Point{X: vg.Length(x0), Y: vg.Length(y0)})
		for i := range svgDirectMin + 2 {
			x, y := x1+float64(i)*dx, y1-float64(i)*dy
			if i%3 == 2 {
				x, y = x0*float64(i), y0/float64(i)
			}
			p.Line(vg.Point{X: vg.Length(x), Y: vg.Length(y)})
		}
		ref := vgsvg.New(100, 100)
		ref.Stroke(p)
		var want bytes.Buffer
		if _, err := ref.WriteTo(&want); err != nil {
			t.Fatal(err)
		}
		fast := newSVGCanvas(100, 100)
		fast.Stroke(p)
		var got bytes.Buffer
		if !fast.writeTo(&got) {
			t.Fatal("writeTo refused its own placeholders")
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("differs from vgsvg:\ngot:  %s\nwant: %s", got.Bytes(), want.Bytes())
		}
	})
}

// TestAppendG5 checks appendG5 against strconv's %.5g on the numbers of
// plots (coordinates in points), powers of ten and their neighbours,
// halves and random values over the whole range of exponents.
func TestAppendG5(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-4, 1e-5, 9.99995e-5, 99999, 99999.5, 1e5, 12345.5, 12344.5,
		0.000123455, 1.23455, 648, 647.99999, 0.1, 0.15, 3.14159, math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e-300}
	for e := -8; e <= 8; e++ {
		p := math.Pow(10, float64(e))
		vals = append(vals, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), 9.99995*p, 9.99994999*p, 1.00005*p)
	}
	rng := rand.New(rand.NewPCG(26, 6))
	for range 200000 {
		v := math.Pow(10, rng.Float64()*12-6)
		if rng.IntN(2) == 0 {
			v = -v
		}
		vals = append(vals, v, math.Round(v*100)/100, math.Round(v*2)/2)
	}
	for range 100000 {
		// Halves of the fifth digit, where rounding is to even.
		n := float64(10000 + rng.IntN(90000))
		vals = append(vals, (n+0.5)/math.Pow(10, float64(rng.IntN(9))))
	}
	for _, v := range vals {
		want := strconv.AppendFloat(nil, v, 'g', svgNumPrecision, 64)
		if got := appendG5(nil, v); string(got) != string(want) {
			t.Errorf("appendG5(%v) = %s, want %s", v, got, want)
		}
	}
}

// FuzzAppendG5 checks appendG5 against strconv on any float64.
func FuzzAppendG5(f *testing.F) {
	f.Add(uint64(0x4084400000000000))
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		want := strconv.AppendFloat(nil, v, 'g', svgNumPrecision, 64)
		if got := appendG5(nil, v); string(got) != string(want) {
			t.Errorf("appendG5(%v) = %s, want %s", v, got, want)
		}
	})
}
