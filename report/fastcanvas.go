package report

import (
	"image"
	"image/color"
	imagedraw "image/draw"
	"math"
	"slices"
	"sync"
	"unsafe"

	"git.sr.ht/~sbinet/gg"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
	plotfont "gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// fastCanvas is the canvas PNG files are drawn on: a vgimg.Canvas whose
// three most frequent operations take a direct path when the current
// transform neither rotates nor skews (everything but rotated labels):
//
//   - text is drawn glyph by glyph with the font's own masks, from one face
//     per font for the whole figure, where vgimg makes a face for every
//     string and resamples every glyph through a general transform;
//   - axis-aligned rectangles are filled with each pixel weighted by the
//     part of it the rectangle covers, as an anti-aliasing rasteriser does,
//     without building and rasterising a path;
//   - solid polylines are stroked as the union of a rectangle around each
//     segment (strokeLines), where vgimg builds the stroke's outline with
//     round joins and rasterises it.
//
// Anything else (dashes, curves, rotated text, images) goes to vgimg. The
// pixels differ from vgimg's only in the last bits of anti-aliased edges.
type fastCanvas struct {
	*vgimg.Canvas
	img   *image.RGBA
	dpi   float64
	h     float64 // image height in pixels: vgimg's y axis points up
	state []canvasState
	faces map[faceKey]font.Face
	src   image.Uniform
	pts   [][2]float64 // a stroke's vertices in pixels
	mask  []float32    // a stroke's coverage of each pixel of its bounds, column by column; zero between strokes
	rows  [][2]int32   // the rows of each column of mask a stroke reached
	cov   []float64    // coverage of pixel columns
	// rast rasterises the glyphs first drawn on this canvas (glyphMask).
	rast vector.Rasterizer
	// blank is whether the image is white as made, nothing drawn on it
	// yet: a white fill (a plot's background) then changes nothing.
	blank bool
}

// canvasState is what Push saves: the transform (dots to dots, before the
// flip of the y axis), the colour, the line width and whether dashes are
// set.
type canvasState struct {
	a, b, c, d, e, f float64 // x' = a x + c y + e, y' = b x + d y + f
	col              color.Color
	width            float64
	dashed           bool
}

type faceKey struct {
	font plotfont.Font
	face any
}

// newFastCanvas returns a fastCanvas of width w and height h at dpi, on a
// white background.
func newFastCanvas(w, h vg.Length, dpi int) *fastCanvas {
	var c *vgimg.Canvas
	pw, ph := int(float64(w)/72*float64(dpi)+0.5), int(float64(h)/72*float64(dpi)+0.5)
	if float64(pw)*72/float64(dpi) == float64(w) && float64(ph)*72/float64(dpi) == float64(h) {
		// A whole number of pixels: the image is drawn on in place (vgimg
		// would copy a new image into another), white, as UseWH and
		// UseBackgroundColor would make it.
		img := pooledRGBA(pw, ph)
		ctx := gg.NewContextForRGBA(img)
		ctx.SetLineCapButt()
		ctx.InvertY()
		c = vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
	} else {
		c = vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	}
	img, _ := c.Image().(*image.RGBA)
	fc := &fastCanvas{Canvas: c, img: img, dpi: float64(dpi), faces: map[faceKey]font.Face{}}
	if img != nil {
		fc.h = float64(img.Bounds().Dy())
		fc.blank = true
	}
	fc.state = []canvasState{{a: 1, d: 1, col: color.Black, width: 1}}
	return fc
}

func (fc *fastCanvas) top() *canvasState { return &fc.state[len(fc.state)-1] }

// SetLineWidth sets the width of strokes.
func (fc *fastCanvas) SetLineWidth(w vg.Length) {
	fc.top().width = w.Dots(fc.dpi)
	fc.Canvas.SetLineWidth(w)
}

// SetLineDash sets the dash pattern of strokes.
func (fc *fastCanvas) SetLineDash(ds []vg.Length, offs vg.Length) {
	fc.top().dashed = len(ds) > 0
	fc.Canvas.SetLineDash(ds, offs)
}

// SetColor sets the colour of strokes, fills and text.
func (fc *fastCanvas) SetColor(c color.Color) {
	if c == nil {
		c = color.Black
	}
	fc.top().col = c
	fc.Canvas.SetColor(c)
}

// Rotate rotates the coordinates by t radians.
func (fc *fastCanvas) Rotate(t float64) {
	s := fc.top()
	sin, cos := math.Sincos(t)
	a, b, c, d := s.a, s.b, s.c, s.d
	s.a, s.b = a*cos+c*sin, b*cos+d*sin
	s.c, s.d = -a*sin+c*cos, -b*sin+d*cos
	fc.Canvas.Rotate(t)
}

// Translate moves the origin to pt.
func (fc *fastCanvas) Translate(pt vg.Point) {
	s := fc.top()
	x, y := pt.X.Dots(fc.dpi), pt.Y.Dots(fc.dpi)
	s.e += s.a*x + s.c*y
	s.f += s.b*x + s.d*y
	fc.Canvas.Translate(pt)
}

// Scale scales the coordinates.
func (fc *fastCanvas) Scale(x, y float64) {
	s := fc.top()
	s.a, s.b = s.a*x, s.b*x
	s.c, s.d = s.c*y, s.d*y
	fc.Canvas.Scale(x, y)
}

// Push saves the state.
func (fc *fastCanvas) Push() {
	fc.state = append(fc.state, *fc.top())
	fc.Canvas.Push()
}

// Pop restores the state Push saved.
func (fc *fastCanvas) Pop() {
	if len(fc.state) > 1 {
		fc.state = fc.state[:len(fc.state)-1]
	}
	fc.Canvas.Pop()
}

// axisAligned reports whether the transform maps axes to axes without
// mirroring, so that a point maps to pixels by scale and offset.
func (s *canvasState) axisAligned() bool { return s.b == 0 && s.c == 0 && s.a > 0 && s.d > 0 }

// pixel maps a point to image pixels.
func (fc *fastCanvas) pixel(s *canvasState, p vg.Point) (x, y float64) {
	px, py := p.X.Dots(fc.dpi), p.Y.Dots(fc.dpi)
	return s.a*px + s.e, fc.h - (s.d*py + s.f)
}

// rgba returns the state's colour, premultiplied, 16 bits a channel.
func (s *canvasState) rgba() (r, g, b, a uint32) { return s.col.RGBA() }

// Fill fills the path.
func (fc *fastCanvas) Fill(p vg.Path) {
	s := fc.top()
	if fc.blank {
		if r, g, b, a := s.rgba(); r&g&b&a == 0xffff {
			return // white on white, whatever the shape
		}
		fc.blank = false
	}
	if fc.img == nil || !s.axisAligned() || !fc.fillRect(s, p) {
		fc.Canvas.Fill(p)
	}
}

// fillRect fills p if it is an axis-aligned rectangle, and reports whether
// it was one.
func (fc *fastCanvas) fillRect(s *canvasState, p vg.Path) bool {
	n := len(p)
	if n > 0 && p[n-1].Type == vg.CloseComp {
		n--
	}
	if n != 4 && n != 5 || p[0].Type != vg.MoveComp {
		return false
	}
	for _, c := range p[1:n] {
		if c.Type != vg.LineComp {
			return false
		}
	}
	if n == 5 && p[4].Pos != p[0].Pos {
		return false
	}
	var xs, ys [4]float64
	for i := range 4 {
		xs[i], ys[i] = fc.pixel(s, p[i].Pos)
	}
	// The sides alternate between vertical and horizontal.
	hv := xs[0] == xs[1] && ys[1] == ys[2] && xs[2] == xs[3] && ys[3] == ys[0]
	vh := ys[0] == ys[1] && xs[1] == xs[2] && ys[2] == ys[3] && xs[3] == xs[0]
	if !hv && !vh {
		return false
	}
	x0, x1 := min(xs[0], xs[2]), max(xs[0], xs[2])
	y0, y1 := min(ys[0], ys[2]), max(ys[0], ys[2])
	r, g, b, a := s.rgba()
	if a == 0 {
		return true
	}
	bounds := fc.img.Bounds()
	ix0, ix1 := max(int(math.Floor(x0)), bounds.Min.X), min(int(math.Ceil(x1)), bounds.Max.X)
	iy0, iy1 := max(int(math.Floor(y0)), bounds.Min.Y), min(int(math.Ceil(y1)), bounds.Max.Y)
	if ix0 >= ix1 || iy0 >= iy1 {
		return true
	}
	// The coverage of each column, then row by row: a row wholly inside
	// an opaque rectangle is copied from the first such row.
	cxs := fc.coverage(ix0, ix1, x0, x1)
	solid := -1
	for y := iy0; y < iy1; y++ {
		cy := math.Min(float64(y+1), y1) - math.Max(float64(y), y0)
		if cy <= 0 {
			continue
		}
		row := fc.img.Pix[fc.img.PixOffset(ix0, y):][: 4*(ix1-ix0) : 4*(ix1-ix0)]
		if cy >= 1 && a == 0xffff && solid >= 0 {
			copy(row, fc.img.Pix[fc.img.PixOffset(ix0, solid):][:4*(ix1-ix0)])
			continue
		}
		for i, cx := range cxs {
			if cx > 0 {
				blend(row[4*i:4*i+4:4*i+4], r, g, b, a, cx*cy)
			}
		}
		if cy >= 1 && a == 0xffff {
			solid = y
		}
	}
	return true
}

// coverage returns, for each pixel column i0 ≤ i < i1, the part of it that
// [x0, x1] covers (in a buffer reused by the next call).
func (fc *fastCanvas) coverage(i0, i1 int, x0, x1 float64) []float64 {
	if cap(fc.cov) < i1-i0 {
		fc.cov = make([]float64, i1-i0)
	}
	cxs := fc.cov[:i1-i0]
	for i := range cxs {
		cxs[i] = max(math.Min(float64(i0+i+1), x1)-math.Max(float64(i0+i), x0), 0)
	}
	return cxs
}

// blend draws colour (r, g, b, a), premultiplied 16-bit, over the pixel px
// with coverage cov in [0, 1], as draw.Over does with a mask.
func blend(px []byte, r, g, b, a uint32, cov float64) {
	const m = 1<<16 - 1
	ma := uint32(cov*m + 0.5)
	if ma >= m && a == m {
		px[0], px[1], px[2], px[3] = uint8(r>>8), uint8(g>>8), uint8(b>>8), uint8(a>>8)
		return
	}
	inv := (m - a*ma/m) * 0x101
	px[0] = uint8((uint32(px[0])*inv + r*ma) / m >> 8)
	px[1] = uint8((uint32(px[1])*inv + g*ma) / m >> 8)
	px[2] = uint8((uint32(px[2])*inv + b*ma) / m >> 8)
	px[3] = uint8((uint32(px[3])*inv + a*ma) / m >> 8)
}

// Stroke strokes the path.
func (fc *fastCanvas) Stroke(p vg.Path) {
	fc.blank = false
	s := fc.top()
	if s.width <= 0 {
		return
	}
	if fc.img == nil || s.dashed || !s.axisAligned() || !fc.strokePath(s, p) {
		fc.Canvas.Stroke(p)
	}
}

// strokePath strokes p with strokeLines if it is made of straight lines
// only, and reports whether it was.
func (fc *fastCanvas) strokePath(s *canvasState, p vg.Path) bool {
	if len(p) < 2 || p[0].Type != vg.MoveComp {
		return false
	}
	for _, c := range p[1:] {
		if c.Type != vg.LineComp {
			return false
		}
	}
	// A line scaled unevenly would not keep its width: not here.
	if s.a != s.d {
		return false
	}
	fc.pts = fc.pts[:0]
	for _, c := range p {
		x, y := fc.pixel(s, c.Pos)
		fc.pts = append(fc.pts, [2]float64{x, y})
	}
	fc.strokeLines(s, fc.pts)
	return true
}

// strokePolyline strokes the polyline through pts in style sty, as
// draw.Canvas.StrokeLines would, without making a path of it first. It
// reports whether it could (a solid line, no rotation); if not, nothing was
// drawn.
func (fc *fastCanvas) strokePolyline(sty draw.LineStyle, pts []vg.Point) bool {
	s := fc.top()
	if fc.img == nil || len(sty.Dashes) > 0 || !s.axisAligned() || s.a != s.d || len(pts) < 2 {
		return false
	}
	fc.blank = false
	fc.SetColor(sty.Color)
	fc.SetLineWidth(sty.Width)
	fc.SetLineDash(sty.Dashes, sty.DashOffs)
	if s.width <= 0 {
		return true
	}
	fc.pts = fc.pts[:0]
	for _, p := range pts {
		x, y := fc.pixel(s, p)
		fc.pts = append(fc.pts, [2]float64{x, y})
	}
	fc.strokeLines(s, fc.pts)
	return true
}

// strokeLines strokes the polyline through pts, in pixels. Each segment,
// cut into pieces at most a pixel wide, is covered by the rectangle around
// the piece widened by half the line width on every side; a pixel takes
// the most any one rectangle covers of it. The segments of the step
// functions the plots draw are horizontal or vertical, for which this is
// the exact stroke with square caps and joins; slanted pieces come out
// slightly bolder.
//
// The coverage is kept column by column, with the rows each column
// reaches, so that only those are blended and cleared again: a line
// across a plot touches a small part of its bounds.
func (fc *fastCanvas) strokeLines(s *canvasState, pts [][2]float64) {
	hw := s.width * s.a / 2
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
	}
	r := image.Rect(int(math.Floor(x0-hw)), int(math.Floor(y0-hw)), int(math.Ceil(x1+hw)), int(math.Ceil(y1+hw))).Intersect(fc.img.Bounds())
	if r.Empty() {
		return
	}
	w, h := r.Dx(), r.Dy()
	// mask holds the coverage of column i's rows at i*h, zero where
	// nothing was drawn; rows[i] are the rows it was drawn on.
	if cap(fc.mask) < w*h {
		if fc.mask != nil {
			// The pool keeps its own slice header: a pointer to
			// fc.mask would hand the new buffer to another canvas.
			if old := fc.mask; !spareMasks.put(old) {
				maskPool.Put(&old)
			}
		}
		fc.mask = pooledMask(w * h)
	}
	mask := fc.mask[:w*h]
	if cap(fc.rows) < w {
		fc.rows = make([][2]int32, w)
	}
	rows := fc.rows[:w]
	for i := range rows {
		rows[i] = [2]int32{int32(h), 0}
	}
	cover := func(ax, ay, bx, by float64) {
		// The rectangle [ax-hw, bx+hw] × [ay-hw, by+hw], in r's pixels.
		ax, bx = ax-hw-float64(r.Min.X), bx+hw-float64(r.Min.X)
		ay, by = ay-hw-float64(r.Min.Y), by+hw-float64(r.Min.Y)
		i0, i1 := max(int(math.Floor(ax)), 0), min(int(math.Ceil(bx)), w)
		j0, j1 := max(int(math.Floor(ay)), 0), min(int(math.Ceil(by)), h)
		if i0 >= i1 || j0 >= j1 {
			return
		}
		// The rows wholly inside the rectangle, [m0, m1), are covered by
		// cx (cy is 1); the others by a part of it.
		m0, m1 := max(j0, int(math.Ceil(ay))), min(j1, int(math.Floor(by)))
		m1 = max(m1, m0)
		for i := i0; i < i1; i++ {
			cx := float32(min(float64(i+1), bx) - max(float64(i), ax))
			rs := &rows[i]
			rs[0], rs[1] = min(rs[0], int32(j0)), max(rs[1], int32(j1))
			col := mask[i*h : i*h+h]
			for j := j0; j < m0; j++ {
				cy := min(float64(j+1), by) - max(float64(j), ay)
				if c := cx * float32(cy); c > col[j] {
					col[j] = c
				}
			}
			for j := m0; j < m1; j++ {
				if cx > col[j] {
					col[j] = cx
				}
			}
			for j := m1; j < j1; j++ {
				cy := min(float64(j+1), by) - max(float64(j), ay)
				if c := cx * float32(cy); c > col[j] {
					col[j] = c
				}
			}
		}
	}
	for k := 1; k < len(pts); k++ {
		ax, ay, bx, by := pts[k-1][0], pts[k-1][1], pts[k][0], pts[k][1]
		if ax == bx || ay == by {
			cover(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
			continue
		}
		// Pieces at most a pixel wide: a steep piece's rectangle is the
		// column the stroke crosses, a shallow one's a pixel's length of it.
		n := max(int(math.Ceil(math.Abs(bx-ax))), 1)
		px, py := ax, ay
		for q := 1; q <= n; q++ {
			t := float64(q) / float64(n)
			qx, qy := ax+(bx-ax)*t, ay+(by-ay)*t
			cover(min(px, qx), min(py, qy), max(px, qx), max(py, qy))
			px, py = qx, qy
		}
	}
	cr, cg, cb, ca := s.rgba()
	stride := fc.img.Stride
	for i, rs := range rows {
		if rs[0] >= rs[1] {
			continue
		}
		col := mask[i*h : i*h+h]
		off := fc.img.PixOffset(r.Min.X+i, r.Min.Y+int(rs[0]))
		for j := rs[0]; j < rs[1]; j, off = j+1, off+stride {
			c := col[j]
			if c <= 0 {
				continue
			}
			col[j] = 0
			if ca == 0xffff {
				blendOpaque(fc.img.Pix[off:off+4:off+4], cr, cg, cb, float64(min(c, 1)))
			} else {
				blend(fc.img.Pix[off:off+4:off+4], cr, cg, cb, ca, float64(min(c, 1)))
			}
		}
	}
}

// blendOpaque is blend of an opaque colour (a = 0xffff): the same pixels,
// with the terms of a worked out, and the alpha of an opaque pixel, which
// stays opaque, left as it is.
func blendOpaque(px []byte, r, g, b uint32, cov float64) {
	const m = 1<<16 - 1
	ma := uint32(cov*m + 0.5)
	if ma >= m {
		px[0], px[1], px[2], px[3] = uint8(r>>8), uint8(g>>8), uint8(b>>8), 0xff
		return
	}
	inv := (m - ma) * 0x101
	px[0] = uint8((uint32(px[0])*inv + r*ma) / m >> 8)
	px[1] = uint8((uint32(px[1])*inv + g*ma) / m >> 8)
	px[2] = uint8((uint32(px[2])*inv + b*ma) / m >> 8)
	if px[3] != 0xff {
		px[3] = uint8((uint32(px[3])*inv + m*ma) / m >> 8)
	}
}

// DrawImage draws img in rect.
func (fc *fastCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	fc.blank = false
	fc.Canvas.DrawImage(rect, img)
}

// FillString draws str with its baseline starting at pt.
func (fc *fastCanvas) FillString(f plotfont.Face, pt vg.Point, str string) {
	fc.blank = false
	s := fc.top()
	if f.Font.Size == 0 {
		return
	}
	if fc.img == nil || !s.axisAligned() || s.a != 1 || s.d != 1 {
		fc.Canvas.FillString(f, pt, str)
		return
	}
	key := faceKey{font: f.Font, face: f.Face}
	face, ok := fc.faces[key]
	if !ok {
		face = f.FontFace(fc.dpi)
		fc.faces[key] = face
	}
	x, y := fc.pixel(s, pt)
	fc.src.C = s.col
	// As font.Drawer.DrawString draws it, with each glyph's mask from
	// glyphCache when the glyph was drawn before at the same fraction of
	// a pixel.
	dot := fixed.Point26_6{X: fix(x), Y: fix(y)}
	prev := rune(-1)
	for _, c := range str {
		if prev >= 0 {
			dot.X += face.Kern(prev, c)
		}
		g := fc.cachedGlyph(f, key, face, dot, c)
		if !g.dr.Empty() {
			imagedraw.DrawMask(fc.img, g.dr.Add(image.Pt(dot.X.Floor(), dot.Y.Floor())), &fc.src, image.Point{}, g.mask, g.maskp, imagedraw.Over)
		}
		dot.X += g.advance
		prev = c
	}
}

// glyphCache holds the glyphs text was drawn with, for every canvas: a
// glyph's mask depends only on the face, the rune and the fraction of a
// pixel where it is drawn, and rasterising it again took most of the time
// of drawing text. It stops growing at glyphCacheMax glyphs.
var glyphCache struct {
	sync.Mutex
	m map[glyphKey]*glyph
}

// glyphCacheMax bounds glyphCache: a few fonts' characters at the
// fractions of a pixel labels fall on.
const glyphCacheMax = 1 << 15

// glyphKey names a glyph drawn: face, resolution, rune and the fraction
// of a pixel (in 64ths) of the dot in x and y.
type glyphKey struct {
	face   faceKey
	dpi    float64
	r      rune
	fx, fy uint8
}

// glyph is what font.Face.Glyph returns for a dot within the pixel (0, 0):
// for a dot in pixel (X, Y), dr moves by (X, Y) and the rest is the same.
type glyph struct {
	dr      image.Rectangle
	mask    image.Image
	maskp   image.Point
	advance fixed.Int26_6
}

// cachedGlyph returns the glyph of c drawn at dot with face, the face of
// f (key) at the canvas's resolution: from glyphCache, or rasterised (and
// kept).
func (fc *fastCanvas) cachedGlyph(f plotfont.Face, key faceKey, face font.Face, dot fixed.Point26_6, c rune) glyph {
	k := glyphKey{face: key, dpi: fc.dpi, r: c, fx: uint8(dot.X & 63), fy: uint8(dot.Y & 63)}
	glyphCache.Lock()
	g, ok := glyphCache.m[k]
	glyphCache.Unlock()
	if ok {
		return *g
	}
	at := fixed.Point26_6{X: fixed.Int26_6(k.fx), Y: fixed.Int26_6(k.fy)}
	if o := outlineOf(f, key, fc.dpi, face, c); o != nil {
		g = fc.glyphMask(o, at)
	} else {
		dr, mask, maskp, advance, _ := face.Glyph(at, c)
		g = &glyph{dr: dr, maskp: maskp, advance: advance}
		// The face reuses its mask for the next glyph: the glyph keeps a
		// copy.
		switch m := mask.(type) {
		case *image.Alpha:
			cp := *m
			cp.Pix = append([]byte(nil), m.Pix...)
			g.mask = &cp
		case nil:
		default:
			// A mask of another kind is drawn at once, and not kept.
			g.mask = mask
			return *g
		}
	}
	glyphCache.Lock()
	if glyphCache.m == nil {
		glyphCache.m = map[glyphKey]*glyph{}
	}
	if len(glyphCache.m) < glyphCacheMax {
		glyphCache.m[k] = g
	}
	glyphCache.Unlock()
	return *g
}

// glyphOutline is a glyph's outline and advance in a face at a
// resolution. Unhinted (as the figures' faces are), they do not depend on
// where the glyph is drawn: a glyph drawn again at another fraction of a
// pixel is rasterised from them without loading it from the font again,
// which took about a third of the time of each new glyph.
type glyphOutline struct {
	segs    sfnt.Segments
	bounds  fixed.Rectangle26_6
	advance fixed.Int26_6
}

// outlineKey names a glyph's outline: face, resolution and rune.
type outlineKey struct {
	face faceKey
	dpi  float64
	r    rune
}

// outlines holds the outlines loaded, for every canvas, up to
// glyphCacheMax of them; a nil entry is a glyph the font could not give
// (drawn by the face itself, as it fails).
var outlines struct {
	sync.Mutex
	m   map[outlineKey]*glyphOutline
	buf sfnt.Buffer
}

// outlineOf returns the outline of c in f at dpi, or nil where face is not
// the unhinted OpenType face of f at dpi that FontFace makes (the face
// then draws c itself) or the font has no outline for c.
func outlineOf(f plotfont.Face, key faceKey, dpi float64, face font.Face, c rune) *glyphOutline {
	if _, ok := face.(*opentype.Face); !ok || f.Face == nil {
		return nil
	}
	k := outlineKey{face: key, dpi: dpi, r: c}
	outlines.Lock()
	defer outlines.Unlock()
	if o, ok := outlines.m[k]; ok {
		return o
	}
	// As opentype.NewFace scales the font, and Face.Glyph loads a glyph
	// (FontFace gives no hinting).
	scale := fixed.Int26_6(0.5 + (f.Font.Size.Points() * dpi * 64 / 72))
	var o *glyphOutline
	if x, err := f.Face.GlyphIndex(&outlines.buf, c); err == nil {
		adv, err := f.Face.GlyphAdvance(&outlines.buf, x, scale, font.HintingNone)
		if err == nil {
			if segs, err := f.Face.LoadGlyph(&outlines.buf, x, scale, nil); err == nil {
				o = &glyphOutline{segs: slices.Clone(segs), bounds: segs.Bounds(), advance: adv}
			}
		}
	}
	if outlines.m == nil {
		outlines.m = map[outlineKey]*glyphOutline{}
	}
	if len(outlines.m) < glyphCacheMax {
		outlines.m[k] = o
	}
	return o
}

// glyphMask rasterises o with its origin at dot (within the pixel (0, 0))
// as opentype's Face.Glyph does: the same bounds, bias, rasteriser and
// operation, into a mask of the glyph's own.
func (fc *fastCanvas) glyphMask(o *glyphOutline, dot fixed.Point26_6) *glyph {
	b := o.bounds.Add(dot)
	dr := image.Rect(b.Min.X.Floor(), b.Min.Y.Floor(), b.Max.X.Ceil(), b.Max.Y.Ceil())
	w, h := b.Max.X.Ceil()-b.Min.X.Floor(), b.Max.Y.Ceil()-b.Min.Y.Floor()
	if w < 0 || h < 0 {
		return &glyph{} // as Face.Glyph fails
	}
	biasX := dot.X - fixed.Int26_6(dr.Min.X<<6)
	biasY := dot.Y - fixed.Int26_6(dr.Min.Y<<6)
	pt := func(p fixed.Point26_6) (float32, float32) {
		return float32(p.X+biasX) / 64, float32(p.Y+biasY) / 64
	}
	mask := &image.Alpha{Pix: make([]uint8, w*h), Stride: w, Rect: image.Rect(0, 0, w, h)}
	r := &fc.rast
	r.Reset(w, h)
	r.DrawOp = imagedraw.Src
	for _, seg := range o.segs {
		switch seg.Op {
		case sfnt.SegmentOpMoveTo:
			r.MoveTo(pt(seg.Args[0]))
		case sfnt.SegmentOpLineTo:
			r.LineTo(pt(seg.Args[0]))
		case sfnt.SegmentOpQuadTo:
			ax, ay := pt(seg.Args[0])
			bx, by := pt(seg.Args[1])
			r.QuadTo(ax, ay, bx, by)
		case sfnt.SegmentOpCubeTo:
			ax, ay := pt(seg.Args[0])
			bx, by := pt(seg.Args[1])
			cx, cy := pt(seg.Args[2])
			r.CubeTo(ax, ay, bx, by, cx, cy)
		}
	}
	r.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	return &glyph{dr: dr, mask: mask, advance: o.advance}
}

// fix converts to 26.6 fixed point as gg does.
func fix(x float64) fixed.Int26_6 { return fixed.Int26_6(math.Round(x * 64)) }

// close releases the faces, and gives the image and the stroke's buffer
// back for another canvas: neither may be used after.
func (fc *fastCanvas) close() {
	for _, f := range fc.faces {
		f.Close()
	}
	if fc.img != nil {
		if pix := fc.img.Pix; !sparePix.put(pix) {
			pixPool.Put(&pix)
		}
		fc.img = nil
	}
	if fc.mask != nil {
		if mask := fc.mask; !spareMasks.put(mask) { // cleared by each stroke
			maskPool.Put(&mask)
		}
		fc.mask = nil
	}
}

// pixPool and maskPool keep the pixels of images and the coverage buffers
// of strokes between figures: a plot's image is megabytes, which a new
// allocation clears (and the collector then reclaims) only for vgimg to
// paint it white.
var pixPool, maskPool sync.Pool

// pooledRGBA returns an image of w×h pixels, from sparePix or pixPool when
// they hold a buffer large enough; its pixels are to be painted over whole.
func pooledRGBA(w, h int) *image.RGBA {
	if pix := sparePix.get(4 * w * h); pix != nil {
		return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	}
	if p, ok := pixPool.Get().(*[]byte); ok && cap(*p) >= 4*w*h {
		return &image.RGBA{Pix: (*p)[:4*w*h], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	prefault(unsafe.Pointer(unsafe.SliceData(img.Pix)), len(img.Pix))
	return img
}

// pooledMask returns a coverage buffer of n zeros, from maskPool when it
// holds one large enough.
func pooledMask(n int) []float32 {
	if m := spareMasks.get(n); m != nil {
		return m
	}
	if p, ok := maskPool.Get().(*[]float32); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	m := make([]float32, n)
	prefault(unsafe.Pointer(unsafe.SliceData(m)), 4*n)
	return m
}

// spares keeps a few buffers canvases gave back beyond the collector's
// reach (up to sparesMax), for the next canvases. A sync.Pool empties at
// every collection, and a run's collections come in the middle of its
// drawing; a new buffer of megabytes costs a page fault every few
// kilobytes the first time it is painted.
type spares[T any] struct {
	sync.Mutex
	bufs [][]T
}

// sparesMax is how many buffers each spares keeps: one for each figure
// drawing at once, on a machine of up to four processors.
const sparesMax = 4

// sparePix and spareMasks are the spare pixels of images and coverage
// buffers of strokes (see pixPool and maskPool).
var (
	sparePix   spares[byte]
	spareMasks spares[float32]
)

// get returns the smallest spare buffer of at least n elements, resliced
// to n, or nil.
func (s *spares[T]) get(n int) []T {
	s.Lock()
	defer s.Unlock()
	best := -1
	for i, b := range s.bufs {
		if cap(b) >= n && (best < 0 || cap(b) < cap(s.bufs[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	b := s.bufs[best]
	s.bufs = slices.Delete(s.bufs, best, best+1)
	return b[:n]
}

// put keeps b, and reports whether it did (not when it holds sparesMax).
func (s *spares[T]) put(b []T) bool {
	s.Lock()
	defer s.Unlock()
	if len(s.bufs) >= sparesMax {
		return false
	}
	s.bufs = append(s.bufs, b)
	return true
}
