package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// renderRunPage writes tiny's figures and report.html into dir and returns
// the page.
func renderRunPage(t *testing.T, dir string, r *Run) []byte {
	t.Helper()
	rendered, err := WriteFigures(dir, RunFigures(r))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteRunHTML(&buf, r, rendered); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "report.html"), func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRunHTML(t *testing.T) {
	r := tinyReport()
	page := string(renderRunPage(t, t.TempDir(), r))
	again := string(renderRunPage(t, t.TempDir(), r))
	if page != again {
		t.Fatal("the same run gives two different pages")
	}
	for _, tc := range []struct {
		name, want string
		count      int
	}{
		{"one inline svg per figure", "<svg ", 5},
		{"no XML prolog inside HTML", "<?xml", 0},
		{"one script, inline", "<script>", 1},
		{"hover data for each figure", `<script type="application/json" class="hover"`, 5},
		{"the canvas Gantt's data", `<script type="application/json" id="gantt-data">`, 1},
		{"nothing loaded from elsewhere", " src=", 0},
		{"no stylesheet link", "<link", 0},
		{"summary table", `<h2 id="summary">Summary</h2>`, 1},
		{"cleaning counts", "<td class=\"indent\">dropped: run time of 0 s or less (dropped_run_le_0)</td><td>2</td>", 1},
		{"per-size table", `<h2 id="by-size">`, 1},
		{"per-runtime table", `<h2 id="by-runtime">`, 1},
		{"size × runtime", `<h2 id="by-size-runtime">`, 1},
		{"loss of capacity row", "loss of capacity</td><td>46.86 % (3805 processor-s)", 1},
		{"gantt", `<h2 id="gantt">Gantt chart</h2>`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Count(page, tc.want); got != tc.count {
				t.Errorf("%q appears %d times, want %d", tc.want, got, tc.count)
			}
		})
	}
	for _, href := range strings.Split(page, "href=\"")[1:] {
		if !strings.HasPrefix(href, "#") {
			t.Errorf("link out of the page: href=%q", href[:min(len(href), 40)])
		}
	}
}

func TestCompareTableGolden(t *testing.T) {
	easy := syntheticReport(t, "easy", 300, DefaultSeriesPoints, easyCfg)
	fcfs := syntheticReport(t, "fcfs", 300, DefaultSeriesPoints, fcfsCfg)
	var buf bytes.Buffer
	if err := WriteCompareTable(&buf, []*Run{easy, fcfs, easy}); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.txt", buf.Bytes())
	buf.Reset()
	if err := WriteCompareCSV(&buf, []*Run{easy, fcfs, easy}); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.csv", buf.Bytes())
	buf.Reset()
	if err := WriteCompareJSON(&buf, []*Run{easy, fcfs, easy}); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.json", buf.Bytes())
	var page bytes.Buffer
	if err := WriteCompareHTML(&page, []*Run{easy, fcfs}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<td class="worse">`) && !strings.Contains(page.String(), `<td class="better">`) {
		t.Error("compare.html marks no change as better or worse")
	}
}

func TestRelChange(t *testing.T) {
	for _, tc := range []struct {
		name        string
		base, v     float64
		better      int
		text, class string
	}{
		{"equal", 10, 10, -1, "=", ""},
		{"lower is better", 10, 5, -1, "-50.0%", "better"},
		{"higher is worse", 10, 15, -1, "+50.0%", "worse"},
		{"higher is better", 0.5, 0.6, +1, "+20.0%", "better"},
		{"neutral", 100, 110, 0, "+10.0%", ""},
		{"from zero", 0, 3, -1, "new", "worse"},
		{"tiny change keeps a digit", 1000000, 1000001, -1, "+0.0001%", "worse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, class := relChange(tc.base, tc.v, tc.better)
			if text != tc.text || class != tc.class {
				t.Errorf("relChange(%v, %v) = %q %q, want %q %q", tc.base, tc.v, text, class, tc.text, tc.class)
			}
		})
	}
}

// TestWriteFiguresSideBySide checks that the figures WriteFigures and
// RenderFigures render side by side are the files each figure renders
// alone, one at a time, in the figures' order.
func TestWriteFiguresSideBySide(t *testing.T) {
	r := tinyReport()
	figs := RunFigures(r)
	if len(figs) < 3 {
		t.Fatalf("only %d figures: nothing renders side by side", len(figs))
	}
	for _, viaBuild := range []bool{false, true} {
		dir := t.TempDir()
		var rendered []Rendered
		var err error
		if viaBuild {
			rendered, err = RenderFigures(dir, func() []*Figure { return RunFigures(r) })
		} else {
			rendered, err = WriteFigures(dir, figs)
		}
		if err != nil {
			t.Fatal(err)
		}
		checkRenderedAlone(t, dir, rendered, RunFigures(r))
	}
}

// checkRenderedAlone checks the files in dir and rendered against figs
// rendered one at a time.
func checkRenderedAlone(t *testing.T, dir string, rendered []Rendered, figs []*Figure) {
	t.Helper()
	if len(rendered) != len(figs) {
		t.Fatalf("%d figures rendered, want %d", len(rendered), len(figs))
	}
	for i, f := range figs {
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		png, err := f.PNG()
		if err != nil {
			t.Fatal(err)
		}
		if rendered[i].Name != f.Name || !bytes.Equal(rendered[i].SVGBytes, svg) {
			t.Errorf("figure %d (%s): returned SVG differs from rendering it alone", i, f.Name)
		}
		for ext, want := range map[string][]byte{".svg": svg, ".png": png} {
			got, err := os.ReadFile(filepath.Join(dir, f.Name+ext))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s%s differs from rendering it alone", f.Name, ext)
			}
		}
	}
}

// TestRunHTMLGanttLeftOut checks that a run with more jobs than the page's
// chart holds says so, with the option that brings the chart back,
// instead of dropping the chart silently.
func TestRunHTMLGanttLeftOut(t *testing.T) {
	r := tinyReport()
	m := NewMetrics()
	g := NewGantt(3)
	replay(tinyRun(), Observers{m, g})
	r.Gantt = g
	page := string(renderRunPage(t, t.TempDir(), r))
	if strings.Contains(page, `id="gantt-data"`) {
		t.Error("the page holds the chart's data of an incomplete Gantt")
	}
	n := g.seen
	for _, want := range []string{
		`<h2 id="gantt-explore">Gantt chart (explore)</h2>`,
		fmt.Sprintf("Left out: %d jobs ran, more than the 3 the page", n),
		fmt.Sprintf("--page-gantt-max-jobs %d to explore them", n),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestWriteRunPlotsFiles checks the files WriteRunPlots writes: every
// figure's SVG and PNG, as each renders alone, and report.html, with no
// temporary file left; and that a file it cannot put in place (a
// directory holds its name) fails the whole, naming it, with no temporary
// file left either.
func TestWriteRunPlotsFiles(t *testing.T) {
	r := tinyReport()
	dir := t.TempDir()
	if err := WriteRunPlots(dir, r); err != nil {
		t.Fatal(err)
	}
	figs := RunFigures(r)
	want := []string{"report.html"}
	for _, f := range figs {
		want = append(want, f.Name+".png", f.Name+".svg")
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, f.Name+".svg")); err != nil || !bytes.Equal(got, svg) {
			t.Errorf("%s.svg: not the figure's SVG (%v)", f.Name, err)
		}
		png, err := f.PNG()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, f.Name+".png")); err != nil || !bytes.Equal(got, png) {
			t.Errorf("%s.png: not the figure's PNG (%v)", f.Name, err)
		}
	}
	slices.Sort(want)
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("wrote %v, want %v", got, want)
	}

	bad := t.TempDir()
	blocked := figs[len(figs)-1].Name + ".svg"
	if err := os.MkdirAll(filepath.Join(bad, blocked, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteRunPlots(bad, r)
	if err == nil || !strings.Contains(err.Error(), blocked) {
		t.Errorf("WriteRunPlots with a directory at %s: %v, want an error naming it", blocked, err)
	}
	for _, name := range dirNames(t, bad) {
		if strings.Contains(name, ".tmp-") {
			t.Errorf("left %s behind", name)
		}
	}
}
