package report

import (
	"math"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// measuredText is the figures' text handler: text.Plain, with the width of
// each line and the extents of each font it measured kept for the next
// time. gonum's plots measure every label several times over (to lay out
// the axes, the legend and the tiles, then to draw it), each measure
// walking the font's tables glyph by glyph into a buffer made for the
// call; the figures of a run measure the same few hundred strings, and
// the figure built for the PNG the same as the one built for the SVG.
// The values are those text.Plain computes, so the figures are the same.
type measuredText struct {
	text.Plain
}

var _ text.Handler = measuredText{}

// textHandler is the handler sans gives every text style of the figures.
var textHandler = measuredText{Plain: text.Plain{Fonts: font.DefaultCache}}

// textWidthsMax bounds the widths kept: the labels of many figures.
const textWidthsMax = 1 << 14

// textWidths holds the widths measured, by font and line, for every figure
// and goroutine.
var textWidths struct {
	sync.Mutex
	m       map[textKey]vg.Length
	extents map[font.Font]font.Extents
}

type textKey struct {
	font font.Font
	line string
}

// width returns the width of line in fnt.
func (h measuredText) width(line string, fnt font.Font) vg.Length {
	k := textKey{fnt, line}
	textWidths.Lock()
	w, ok := textWidths.m[k]
	textWidths.Unlock()
	if ok {
		return w
	}
	face := h.Fonts.Lookup(fnt, fnt.Size)
	w = face.Width(line)
	textWidths.Lock()
	if textWidths.m == nil {
		textWidths.m = map[textKey]vg.Length{}
	}
	if len(textWidths.m) < textWidthsMax {
		textWidths.m[k] = w
	}
	textWidths.Unlock()
	return w
}

// Extents returns the extents of fnt, as text.Plain does.
func (h measuredText) Extents(fnt font.Font) font.Extents {
	textWidths.Lock()
	e, ok := textWidths.extents[fnt]
	textWidths.Unlock()
	if ok {
		return e
	}
	e = h.Plain.Extents(fnt)
	textWidths.Lock()
	if textWidths.extents == nil {
		textWidths.extents = map[font.Font]font.Extents{}
	}
	if len(textWidths.extents) < textWidthsMax {
		textWidths.extents[fnt] = e
	}
	textWidths.Unlock()
	return e
}

// Box returns the bounding box of the line txt in fnt, as text.Plain does.
func (h measuredText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	ext := h.Extents(fnt)
	return h.width(txt, fnt), ext.Ascent, ext.Descent
}

// Draw draws txt in style sty at pt, as text.Plain does, with the widths
// measured before.
func (h measuredText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if len(txt) == 0 {
		return
	}
	fnt := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin
	lines := h.Lines(txt)
	ht := sty.Height(txt)
	pt.Y += ht*vg.Length(sty.YAlign) - h.Extents(sty.Font).Ascent
	for i, line := range lines {
		xoffs := vg.Length(sty.XAlign) * h.width(line, sty.Font)
		n := vg.Length(len(lines) - i)
		c.FillString(fnt, pt.Add(vg.Point{X: xoffs, Y: n * sty.Font.Size}), line)
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

// plotTextHandler returns the figures' text handler: measuredText, when
// plot's default handler is text.Plain on the default font cache, which it
// stands in for; else, if another package replaced it, that handler.
func plotTextHandler() text.Handler {
	if p, ok := plot.DefaultTextHandler.(text.Plain); ok && p.Fonts == font.DefaultCache {
		return textHandler
	}
	return plot.DefaultTextHandler
}
