package report

import (
	"bytes"
	"math"
	"strconv"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// svgCanvas is the canvas SVG files are drawn on: a vgsvg.Canvas that
// writes the path data of long polylines itself. vgsvg formats each vertex
// with fmt.Fprintf, which took most of the time of writing a plot of dense
// lines; svgCanvas formats the same numbers the same way with strconv, a
// few times faster. vgsvg still writes each path element (its style
// included): with a placeholder for its data, which writeTo replaces. The
// bytes are vgsvg's, byte for byte.
type svgCanvas struct {
	*vgsvg.Canvas
	// paths holds the data of the paths written as placeholders; the
	// placeholder of path k is svgPlaceholder(k).
	paths [][]byte
	// widths are the line widths of the states Push saved and the current
	// one, last: vgsvg draws no stroke of width 0 or less.
	widths []vg.Length
}

// svgDirectMin is the fewest vertices of a path whose data svgCanvas
// writes itself: a placeholder is formatted by vgsvg, so short paths gain
// nothing.
const svgDirectMin = 8

// svgNumPrecision is the precision of the numbers vgsvg writes (%.*g with
// its pr).
const svgNumPrecision = 5

// newSVGCanvas returns an svgCanvas of width w and height h.
func newSVGCanvas(w, h vg.Length) *svgCanvas {
	// vgsvg's initial line width.
	return &svgCanvas{Canvas: vgsvg.New(w, h), widths: []vg.Length{vg.Length(1)}}
}

// SetLineWidth sets the width of strokes.
func (c *svgCanvas) SetLineWidth(w vg.Length) {
	c.widths[len(c.widths)-1] = w
	c.Canvas.SetLineWidth(w)
}

// Push saves the state.
func (c *svgCanvas) Push() {
	c.widths = append(c.widths, c.widths[len(c.widths)-1])
	c.Canvas.Push()
}

// Pop restores the state Push saved.
func (c *svgCanvas) Pop() {
	if len(c.widths) > 1 {
		c.widths = c.widths[:len(c.widths)-1]
	}
	c.Canvas.Pop()
}

// Stroke strokes the path.
func (c *svgCanvas) Stroke(p vg.Path) {
	if len(p) >= svgDirectMin && c.widths[len(c.widths)-1] > 0 {
		if data, ok := svgPathData(p); ok {
			k := len(c.paths)
			c.paths = append(c.paths, data)
			c.Canvas.Stroke(svgPlaceholder(k))
			return
		}
	}
	c.Canvas.Stroke(p)
}

// svgPlaceholder is the path whose data ("MNaN,NaNLk,k") stands for path
// k's: a path drawn never starts at NaN (svgPathData refuses them).
func svgPlaceholder(k int) vg.Path {
	nan := vg.Length(math.NaN())
	return vg.Path{
		{Type: vg.MoveComp, Pos: vg.Point{X: nan, Y: nan}},
		{Type: vg.LineComp, Pos: vg.Point{X: vg.Length(k), Y: vg.Length(k)}},
	}
}

// svgPlaceholderPrefix starts the data of every placeholder, as vgsvg
// writes it.
const svgPlaceholderPrefix = `d="MNaN,NaNL`

// svgPathData returns the data of a path of a move and lines, as vgsvg
// writes it ("M%.*g,%.*g" then "L%.*g,%.*g" for each line, precision 5),
// and whether the path is one: other components, and numbers that are
// not finite (which fmt and strconv write differently), are left to vgsvg.
func svgPathData(p vg.Path) ([]byte, bool) {
	if p[0].Type != vg.MoveComp {
		return nil, false
	}
	for _, c := range p[1:] {
		if c.Type != vg.LineComp {
			return nil, false
		}
	}
	b := make([]byte, 0, 16*len(p))
	for i, c := range p {
		x, y := c.Pos.X.Points(), c.Pos.Y.Points()
		if math.IsInf(x, 0) || math.IsNaN(x) || math.IsInf(y, 0) || math.IsNaN(y) {
			return nil, false
		}
		if i == 0 {
			b = append(b, 'M')
		} else {
			b = append(b, 'L')
		}
		b = appendG5(b, x)
		b = append(b, ',')
		b = appendG5(b, y)
	}
	return b, true
}

// pow10s are the powers of ten appendG5 scales by, each exact in a
// float64.
var pow10s = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// appendG5 appends v as strconv.AppendFloat(b, v, 'g', 5, 64) does, byte
// for byte, faster for the numbers of a plot's coordinates (from 1e-4 to
// 1e5): v is scaled by a power of ten to five digits before the point,
// rounded, and printed as an integer with the point put back. The scaling
// is one exact rounding away from v·10ᵏ, so the result is strconv's unless
// that product lies within a hair of a half, where rounding could go
// either way: those, and every other case (exponents, zero, infinities,
// NaN), are left to strconv.
func appendG5(b []byte, v float64) []byte {
	a := math.Abs(v)
	if !(a >= 1e-4 && a < 1e5) {
		return strconv.AppendFloat(b, v, 'g', svgNumPrecision, 64)
	}
	// k: the decimals that leave five digits before the point.
	k := 4
	for t := 10.0; a >= t && k > 0; t *= 10 {
		k--
	}
	if a < 1 {
		for t := 1.0; a < t && k < 8; t /= 10 {
			k++
		}
	}
	y := a * pow10s[k]
	r := math.Floor(y)
	f := y - r
	if f > 0.5-1e-6 && f < 0.5+1e-6 || y < 9999.5 || y >= 99999.5 {
		// Near a half, or the digits' count misjudged at a power of
		// ten: strconv rounds it exactly.
		return strconv.AppendFloat(b, v, 'g', svgNumPrecision, 64)
	}
	if f > 0.5 {
		r++
	}
	n := uint32(r) // 10000 ≤ n ≤ 99999
	if v < 0 {
		b = append(b, '-')
	}
	var d [5]byte
	for i := 4; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	// The digits are d·10^-k: 5-k before the point (k ≤ 4), or a zero and
	// k-5 more after it (k > 4); trailing zeros of the fraction dropped.
	last := 4
	for last >= 0 && last >= 5-k && d[last] == '0' {
		last--
	}
	switch {
	case k <= 4:
		b = append(b, d[:5-k]...)
		if last >= 5-k {
			b = append(b, '.')
			b = append(b, d[5-k:last+1]...)
		}
	default:
		b = append(b, '0', '.')
		for range k - 5 {
			b = append(b, '0')
		}
		b = append(b, d[:last+1]...)
	}
	return b
}

// writeTo writes the SVG document into out, each placeholder replaced by
// its path's data. It reports false, having written nothing usable, when
// a placeholder cannot be read back (a path of vgsvg's own that looks like
// one): the figure must then be drawn on a plain vgsvg.Canvas.
func (c *svgCanvas) writeTo(out *bytes.Buffer) bool {
	var doc bytes.Buffer
	if _, err := c.Canvas.WriteTo(&doc); err != nil {
		return false
	}
	src := doc.Bytes()
	if len(c.paths) == 0 {
		out.Write(src)
		return true
	}
	n := len(src)
	for _, p := range c.paths {
		n += len(p)
	}
	out.Grow(n)
	// The placeholders must come back in order, each once: another path
	// that looks like one breaks the sequence.
	prefix := []byte(svgPlaceholderPrefix)
	for next := 0; ; next++ {
		i := bytes.Index(src, prefix)
		if i < 0 {
			out.Write(src)
			return next == len(c.paths)
		}
		// d="MNaN,NaNLk,k": the path is k's.
		rest := src[i+len(prefix):]
		comma := bytes.IndexByte(rest, ',')
		if comma <= 0 {
			return false
		}
		if k, err := strconv.Atoi(string(rest[:comma])); err != nil || k != next || k >= len(c.paths) {
			return false
		}
		tail := rest[comma+1:]
		ks := rest[:comma]
		if !bytes.HasPrefix(tail, ks) || len(tail) <= len(ks) || tail[len(ks)] != '"' {
			return false
		}
		out.Write(src[:i])
		out.WriteString(`d="`)
		out.Write(c.paths[next])
		src = tail[len(ks):]
	}
}
