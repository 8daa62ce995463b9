package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"sync"
	"unsafe"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// pageCSS styles both HTML pages. The pages load nothing: no script, no
// font, no image outside the page.
const pageCSS = `
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
p.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.92em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e4e4e4; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #999; background: #f6f6f6; }
td.indent { padding-left: 2em; }
td.worse { color: #b00; } td.better { color: #070; }
figure { margin: 0.5em 0 2em; }
figure svg { width: 100%; height: auto; display: block; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; margin-bottom: 0.5em; }
nav a { margin-right: 1em; }
table.sortable thead th { cursor: pointer; }
table.sortable thead th[data-dir="desc"]::after { content: " ▼"; } table.sortable thead th[data-dir="asc"]::after { content: " ▲"; }
td.rest { font-style: italic; }
.tip { position: absolute; display: none; background: #fffff0; border: 1px solid #999; padding: 0.2em 0.5em; font-size: 0.85em; pointer-events: none; max-width: 32em; box-shadow: 1px 1px 3px rgba(0,0,0,0.2); z-index: 10; }
circle.hovermark { fill: none; stroke: #000; stroke-width: 1.5; pointer-events: none; }
#gantt-canvas { width: 100%; height: 420px; display: block; border: 1px solid #eee; cursor: grab; }
.controls button { margin-right: 0.5em; }
`

// pageHead is the pages' template up to their Gantt data, which report.html
// streams between pageHead and pageTail (writePageHead: a run's data are
// megabytes); pageTemplate is a page without them (compare.html).
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>{{.FontFace}}` + pageCSS + `</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{.Sub}}</p>
{{- if .Figures}}
<nav>{{range .Figures}}<a href="#{{.Name}}">{{.Title}}</a>{{end}}</nav>
{{- end}}
{{- range .Tables}}
<h2 id="{{.ID}}">{{.Title}}</h2>
{{- if .Note}}<p class="sub">{{.Note}}</p>{{end}}
<table{{if .Head}} class="sortable"{{end}}>
{{- if .Head}}
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
{{- end}}
<tbody>
{{- range .Rows}}
<tr>{{range $i, $c := .}}<td{{if $c.Class}} class="{{$c.Class}}"{{end}}>{{$c.Text}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- if .Gantt}}
<h2 id="gantt-explore">Gantt chart (explore)</h2>
<p class="sub">Every job that ran, on the processors it ran on. Zoom with the mouse wheel or the buttons, drag to pan; the job under the pointer is named. Killed jobs have a red outline.</p>
<p class="controls"><button id="gantt-in" type="button">zoom in</button><button id="gantt-out" type="button">zoom out</button><button id="gantt-reset" type="button">all jobs</button> <span id="gantt-status" class="sub"></span></p>
<canvas id="gantt-canvas"></canvas>
{{else if .GanttNote}}
<h2 id="gantt-explore">Gantt chart (explore)</h2>
<p class="sub">{{.GanttNote}}</p>
{{- end}}`

// pageTail is the pages' template after their Gantt data.
const pageTail = `{{- range .Figures}}
<h2 id="{{.Name}}">{{.Title}}</h2>
<figure id="fig-{{.Name}}">
<figcaption>{{.Caption}}</figcaption>
{{.SVG}}
</figure>
{{- if .Hover}}
<script type="application/json" class="hover" data-for="{{.Name}}">{{.Hover}}</script>
{{- end}}
{{- end}}
<script>{{.Script}}</script>
<p class="sub">Written by schedsim. Every plot is also in this directory as NAME.svg and NAME.png.</p>
</body>
</html>
`

var (
	pageTemplate     = template.Must(template.New("page").Parse(pageHead + pageTail))
	pageHeadTemplate = template.Must(template.New("head").Parse(pageHead))
	pageTailTemplate = template.Must(template.New("tail").Parse(pageTail))
)

type pageCell struct {
	Text, Class string
}

type pageTable struct {
	ID, Title, Note string
	Head            []string
	Rows            [][]pageCell
}

type pageFigure struct {
	Name, Title, Caption string
	SVG                  template.HTML
	// Hover are the points named on hover, as JSON.
	Hover template.JS
}

type page struct {
	FontFace   template.CSS
	Title, Sub string
	Tables     []pageTable
	Figures    []pageFigure
	// Gantt is whether the page has the canvas Gantt chart: its data
	// are written by writePageHead, between pageHead and pageTail.
	Gantt bool
	// GanttNote, without Gantt, says why the page has no chart.
	GanttNote string
	// Script makes the page explorable (pageScript).
	Script template.JS
}

// inlineSVG returns the SVG document as an element to inline in HTML: the
// XML prolog and comment before the <svg> element are dropped.
func inlineSVG(svg []byte) template.HTML {
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		svg = svg[i:]
	}
	// The SVG is schedsim's own output, drawn from numbers and names it
	// escaped (svgo escapes text), so it is safe to inline.
	return template.HTML(svg)
}

// fontFace declares Liberation Sans, embedded: the plots' text was laid out
// with its metrics, and a browser without it would draw wider text past
// the places computed for it. It is encoded on first use, not at start-up:
// a run without plots never needs it.
var fontFace = sync.OnceValue(func() template.CSS {
	// Made in one buffer of its final size: the base64 text is half a
	// megabyte, and each copy of it costs a page fault every 4 kB.
	const head, tail = `@font-face { font-family: "Liberation Sans"; src: url(data:font/ttf;base64,`, `) format("truetype"); }`
	b := make([]byte, 0, len(head)+base64.StdEncoding.EncodedLen(len(liberationsansregular.TTF))+len(tail))
	b = append(appendBase64(append(b, head...), liberationsansregular.TTF), tail...)
	return template.CSS(unsafe.String(unsafe.SliceData(b), len(b)))
})

func pageFigures(figs []Rendered) []pageFigure {
	out := make([]pageFigure, len(figs))
	for i, f := range figs {
		hover := f.hover
		if !f.hoverMade {
			hover = f.hoverJSON()
		}
		out[i] = pageFigure{Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: inlineSVG(f.SVGBytes), Hover: template.JS(hover)}
	}
	return out
}

func rowsTable(id, title string, rows []tableRow) pageTable {
	t := pageTable{ID: id, Title: title}
	for _, r := range rows {
		c := pageCell{Text: r.label}
		if r.indent > 0 {
			c.Class = "indent"
		}
		t.Rows = append(t.Rows, []pageCell{c, {Text: r.value}})
	}
	return t
}

func classTable(id, title string, names []string, cls []ClassStats) pageTable {
	t := pageTable{ID: id, Title: title,
		Note: "Waits in seconds; bounded slowdown with τ = " + fmt.Sprint(BoundedSlowdownTauSec) + " s; jobs that ran.",
		Head: []string{"class", "jobs", "killed", "wait mean", "median", "p90", "p99", "max",
			"bounded slowdown mean", "median", "p90", "p99", "max"}}
	for i, c := range cls {
		row := []pageCell{{Text: names[i]}, {Text: fmt.Sprint(c.Jobs)}, {Text: fmt.Sprint(c.Killed)}}
		for _, v := range []float64{c.Wait.Mean, c.Wait.Median, c.Wait.P90, c.Wait.P99, c.Wait.Max} {
			row = append(row, pageCell{Text: fmt.Sprintf("%.0f", v)})
		}
		for _, v := range []float64{c.BoundedSlowdown.Mean, c.BoundedSlowdown.Median, c.BoundedSlowdown.P90, c.BoundedSlowdown.P99, c.BoundedSlowdown.Max} {
			row = append(row, pageCell{Text: fmt.Sprintf("%.2f", v)})
		}
		if c.Jobs == 0 {
			row = append(row[:2], pageCell{Text: "no jobs"})
			for len(row) < len(t.Head) {
				row = append(row, pageCell{})
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// WriteRunHTML writes report.html for one run: the summary table, the
// cleaning counts, the metrics per job class and every figure, inline. The
// page is self-contained (no script, no link, nothing to fetch) and depends
// only on its arguments.
func WriteRunHTML(w io.Writer, r *Run, figs []Rendered) error {
	bw := bufio.NewWriterSize(w, pageBuffer)
	p := runPage(r)
	p.Figures = pageFigures(figs)
	if err := writePageHead(bw, p, r); err != nil {
		return err
	}
	if err := pageTailTemplate.Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}

// pageBuffer is the size of the buffer report.html is written through.
const pageBuffer = 1 << 18

// ganttOpen and ganttClose enclose the page's Gantt data, between pageHead
// and pageTail.
const (
	ganttOpen  = `<script type="application/json" id="gantt-data">`
	ganttClose = `</script>`
)

// runPage returns report.html's page for r without its figures: the
// tables, the script, whether it has a Gantt chart.
func runPage(r *Run) *page {
	s := &r.Summary
	p := &page{
		FontFace: fontFace(),
		Title:    "schedsim report — " + s.Trace,
		Sub:      fmt.Sprintf("%s on %d processors · %d jobs", s.Policy, s.Procs, s.Jobs),
	}
	p.Tables = append(p.Tables, rowsTable("summary", "Summary", summaryRows(s)))
	clean := rowsTable("cleaning", "Cleaning", cleaningHumanRows(s.Cleaning))
	if len(clean.Rows) == 0 {
		clean.Note = "No cleaning rule changed or dropped a job."
	}
	p.Tables = append(p.Tables, clean)
	p.Tables = append(p.Tables,
		classTable("by-size", "By job size (processors)", SizeClassLabels[:], s.BySize[:]),
		classTable("by-runtime", "By run time (actual)", RuntimeClassLabels[:], s.ByRuntime[:]))
	cross := pageTable{ID: "by-size-runtime", Title: "Mean bounded slowdown by size × run time",
		Note: "Each cell: mean bounded slowdown (jobs that ran).",
		Head: append([]string{"processors \\ run time"}, RuntimeClassLabels[:]...)}
	for i := range s.BySizeRuntime {
		row := []pageCell{{Text: SizeClassLabels[i]}}
		for _, c := range s.BySizeRuntime[i] {
			text := "–"
			if c.Jobs > 0 {
				text = fmt.Sprintf("%.2f (%d)", c.BoundedSlowdown.Mean, c.Jobs)
			}
			row = append(row, pageCell{Text: text})
		}
		cross.Rows = append(cross.Rows, row)
	}
	p.Tables = append(p.Tables, cross)
	p.Tables = append(p.Tables, breakdownTables(s.Breakdowns)...)
	if hasPageGantt(r) {
		p.Gantt = true
	} else if g := r.Gantt; g != nil && !g.Complete() {
		p.GanttNote = fmt.Sprintf("Left out: %d jobs ran, more than the %d the page's chart holds (--page-gantt-max-jobs; "+
			"its data takes about 50 bytes a job in the page, and gathering it time and memory). ", g.seen, g.limit)
		if g.seen <= PageGanttMaxJobs {
			p.GanttNote += fmt.Sprintf("Run again with --page-gantt-max-jobs %d to explore them.", g.seen)
		} else {
			p.GanttNote += fmt.Sprintf("A page holds at most %d; jobs.csv has every job's start and processors.", PageGanttMaxJobs)
		}
	}
	p.Script = pageScript
	if r.Tick > 1 {
		p.Script = template.JS(tickPageScript)
	}
	return p
}

// writePageHead writes the page up to its figures: the head (whose nav
// needs only the figures' names and titles in p.Figures) and the Gantt
// data, if any.
func writePageHead(w *bufio.Writer, p *page, r *Run) error {
	if err := pageHeadTemplate.Execute(w, p); err != nil {
		return err
	}
	if !p.Gantt {
		return nil
	}
	w.WriteString(ganttOpen)
	if err := writeGanttJSON(w, r); err != nil {
		return err
	}
	_, err := w.WriteString(ganttClose)
	return err
}

// WriteCompareHTML writes compare.html: the comparison table (as
// WriteCompareTable) and the overlaid figures, inline, self-contained.
func WriteCompareHTML(w io.Writer, runs []*Run, figs []Rendered) error {
	p := page{FontFace: fontFace(), Title: "schedsim comparison — " + compareSubtitle(runs),
		Sub: fmt.Sprintf("%d runs; changes are relative to the first run, %q", len(runs), runName(runs, 0))}
	head, rows := compareRows(runs)
	t := pageTable{ID: "compare", Title: "Metrics", Head: head,
		Note: "Percentages are changes against the first run: green where the change is for the better, red where it is for the worse."}
	for _, r := range rows {
		row := []pageCell{{Text: r.metric}}
		for i, v := range r.text {
			c := pageCell{Text: v}
			if i > 0 && r.change[i] != "" {
				c.Text += " (" + r.change[i] + ")"
				c.Class = r.class[i]
			}
			row = append(row, c)
		}
		t.Rows = append(t.Rows, row)
	}
	p.Tables = append(p.Tables, t)
	p.Figures = pageFigures(figs)
	p.Script = pageScript
	return pageTemplate.Execute(w, &p)
}

// PrepareDrawing does ahead the part of WriteRunPlots' work that depends
// on no run: the page's embedded font is encoded and its templates are
// escaped (html/template does it on their first use). A run calls it on a
// goroutine of its own while it simulates, so that the drawing after the
// run does less; what is drawn is the same with or without it. It is safe
// to call at any time, and more than once. (Making the figures' image
// buffers ahead too, their pages touched, cost the run more than it saved
// the drawing: the run keeps both processors busy most of the time.)
func PrepareDrawing() {
	fontFace()
	empty := &page{}
	pageHeadTemplate.Execute(io.Discard, empty)
	pageTailTemplate.Execute(io.Discard, empty)
}

// WriteRunPlots writes a run's figures (NAME.svg, NAME.png) and
// report.html into dir, each file atomically.
func WriteRunPlots(dir string, r *Run) error {
	// The figures are built twice side by side: all of them only read the
	// run once the Gantt's jobs, made on their first reading, are settled.
	if r.Gantt != nil && r.Gantt.Len() > 0 && (r.GanttFigureMax <= 0 || r.Gantt.Len() <= r.GanttFigureMax) {
		r.Gantt.Jobs()
	}
	f, err := CreateAtomic(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, pageBuffer)
	p := runPage(r)
	// The page up to its figures, with the Gantt data (megabytes for a
	// long run), is written while the figures render, as one of their
	// tasks: it needs only their names and titles, known once they are
	// built. Once written it starts on its way to disk, as each figure's
	// file does; they are synced together at the end.
	var headErr error
	rendered, wait, err := renderFigures(dir, func() []*Figure { return RunFigures(r) }, func(figs []*Figure) []renderTask {
		p.Figures = make([]pageFigure, len(figs))
		for i, f := range figs {
			p.Figures[i] = pageFigure{Name: f.Name, Title: f.Title}
		}
		return []renderTask{{pageHeadWork(r), func() {
			if headErr = writePageHead(w, p, r); headErr == nil {
				headErr = w.Flush()
				f.StartWriteback()
			}
		}}}
	}, true)
	if err != nil {
		return wait()
	}
	if err := cmp.Or(headErr, writePageTail(w, p, rendered)); err != nil {
		wait()
		return err
	}
	// report.html syncs while the figures' files do, all at the end.
	written := make(chan error, 1)
	go func() { written <- wait() }()
	err = f.Commit()
	if werr := <-written; werr != nil {
		return werr
	}
	return err
}

// writePageTail writes the page from its figures on, and flushes w.
func writePageTail(w *bufio.Writer, p *page, rendered []Rendered) error {
	p.Figures = pageFigures(rendered)
	if err := pageTailTemplate.Execute(w, p); err != nil {
		return err
	}
	return w.Flush()
}

// pageHeadWork estimates the work of writing the page's head (renderTask):
// mostly packing and encoding the Gantt data, by their rectangles.
func pageHeadWork(r *Run) float64 {
	if !hasPageGantt(r) {
		return 1
	}
	return 1 + 1e-4*float64(r.Gantt.nr)
}
