package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// The browser test loads report.html in headless Chromium, driven by
// chromedriver over loopback (WebDriver), and checks that every plot
// rendered with a non-zero size, that the page fetched nothing, and that the
// console logged no error. Debian's chromium and chromium-driver packages
// provide both programs; .ci/install-chromium.sh installs them.
//
// Without them the test skips, except under CI (CI set), where it fails.
// SCHEDSIM_SCREENSHOT=FILE.png saves a screenshot of the page to look at.

// chromiumFlags are the browser's flags: headless, sandbox off (CI runs as
// root), nothing that talks to the network on its own, and no throttling
// of a page Chromium deems in the background or hidden: the Gantt chart
// redraws in an animation frame, which a throttled renderer held back
// past the script's 30 s once, while go test ran other packages on both
// cores (the frame comes in under a second otherwise).
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
	"--disable-renderer-backgrounding", "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
	"--window-size=1280,2000"}

// findBrowser returns the paths of chromium and chromedriver, or skips (or,
// under CI, fails) the test.
func findBrowser(t *testing.T) (string, string) {
	t.Helper()
	var paths []string
	for _, names := range [][]string{{"chromium", "chromium-browser", "google-chrome"}, {"chromedriver"}} {
		found := ""
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				found = p
				break
			}
		}
		if found == "" {
			msg := fmt.Sprintf("%s not found: install Debian's chromium and chromium-driver (.ci/install-chromium.sh)", names[0])
			if os.Getenv("CI") != "" {
				t.Fatal(msg + "; CI must run the browser test")
			}
			t.Skip("skipping the browser test: " + msg)
		}
		paths = append(paths, found)
	}
	return paths[0], paths[1]
}

// webDriver is a minimal WebDriver client for one session.
type webDriver struct {
	t       *testing.T
	base    string
	session string
	client  *http.Client
}

func (d *webDriver) call(method, path string, body any) json.RawMessage {
	d.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.base+path, rd)
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		d.t.Fatalf("webdriver %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != http.StatusOK {
		d.t.Fatalf("webdriver %s %s: status %d: %.500s", method, path, resp.StatusCode, b)
	}
	return out.Value
}

// startBrowser starts chromedriver on a free loopback port and opens a
// session; both end when the test does.
func startBrowser(t *testing.T) *webDriver {
	chromium, driver := findBrowser(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, driver, fmt.Sprintf("--port=%d", port), "--allowed-ips=127.0.0.1")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		cancel()
	})
	d := &webDriver{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port), client: &http.Client{Timeout: time.Minute}}
	// Poll the driver's readiness endpoint until it answers: no fixed
	// number of tries, which a loaded machine can outlast; the context's
	// deadline bounds the wait.
	for {
		resp, err := d.client.Get(d.base + "/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("chromedriver did not answer on port %d: %v\n%s", port, err, logs.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	args := append(append([]string(nil), chromiumFlags...), "--user-data-dir="+t.TempDir())
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName":        "chrome",
		"goog:chromeOptions": map[string]any{"binary": chromium, "args": args},
		"goog:loggingPrefs":  map[string]string{"browser": "ALL"},
	}}}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(d.call("POST", "/session", caps), &sess); err != nil || sess.SessionID == "" {
		t.Fatalf("no WebDriver session: %v", err)
	}
	d.session = "/session/" + sess.SessionID
	t.Cleanup(func() { d.call("DELETE", d.session, nil) })
	return d
}

// load opens a file in the browser.
func (d *webDriver) load(path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		d.t.Fatal(err)
	}
	d.call("POST", d.session+"/url", map[string]string{"url": (&url.URL{Scheme: "file", Path: abs}).String()})
	// The driver may answer while a page of several megabytes is still
	// being parsed, before its script at the end of the body has run (a
	// test then saw the Gantt chart undrawn). Wait for the load event,
	// bounded by the client's timeout.
	const ready = `return new Promise(done => document.readyState === "complete" ? done(true) : window.addEventListener("load", () => done(true)));`
	if v := d.call("POST", d.session+"/execute/sync", map[string]any{"script": ready, "args": []any{}}); string(v) != "true" {
		d.t.Fatalf("the page %s did not finish loading: %s", path, v)
	}
}

// consoleErrors returns the browser console's messages of level SEVERE
// since the last call.
func (d *webDriver) consoleErrors() []string {
	var entries []struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(d.call("POST", d.session+"/se/log", map[string]string{"type": "browser"}), &entries); err != nil {
		d.t.Fatal(err)
	}
	var errs []string
	for _, e := range entries {
		if e.Level == "SEVERE" {
			errs = append(errs, e.Message)
		}
	}
	return errs
}

// pageFacts is what the test reads from the loaded page.
type pageFacts struct {
	Title     string      `json:"title"`
	Plots     [][]float64 `json:"plots"` // width, height of each figure's svg
	Texts     []int       `json:"texts"` // <text> elements in each svg
	Tables    int         `json:"tables"`
	Resources int         `json:"resources"` // entries the page fetched
}

const factsScript = `
const svgs = Array.from(document.querySelectorAll('figure svg'));
return {
  title: document.title,
  plots: svgs.map(s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; }),
  texts: svgs.map(s => s.querySelectorAll('text').length),
  tables: document.querySelectorAll('table').length,
  resources: performance.getEntriesByType('resource').length,
};`

func TestReportInBrowser(t *testing.T) {
	d := startBrowser(t)
	dir := t.TempDir()

	// A control page: the test must see a console error when there is one.
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><title>bad</title><script>console.error("planted error")</script>`), 0o644)
	d.load(bad)
	// The browser may hand the message over a little after the page
	// loaded, on a busy machine: ask again for up to ten seconds.
	var seen []string
	for try := 0; try < 100 && !strings.Contains(strings.Join(seen, " "), "planted error"); try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		seen = append(seen, d.consoleErrors()...)
	}
	if !strings.Contains(strings.Join(seen, " "), "planted error") {
		t.Fatalf("the console log misses a planted error: %q", seen)
	}

	r := tinyReport()
	renderRunPage(t, dir, r)
	d.load(filepath.Join(dir, "report.html"))
	var facts pageFacts
	if err := json.Unmarshal(d.call("POST", d.session+"/execute/sync", map[string]any{"script": factsScript, "args": []any{}}), &facts); err != nil {
		t.Fatal(err)
	}
	if want := "schedsim report — tiny.swf"; facts.Title != want {
		t.Errorf("title %q, want %q", facts.Title, want)
	}
	if len(facts.Plots) != len(RunFigures(r)) {
		t.Errorf("%d plots rendered, want %d", len(facts.Plots), len(RunFigures(r)))
	}
	for i, wh := range facts.Plots {
		if len(wh) != 2 || wh[0] < 200 || wh[1] < 100 {
			t.Errorf("plot %d rendered at %v pixels", i, wh)
		}
		if facts.Texts[i] < 5 {
			t.Errorf("plot %d has %d text elements: no title, labels or ticks", i, facts.Texts[i])
		}
	}
	if facts.Tables != 5 {
		t.Errorf("%d tables, want 5 (summary, cleaning, size, runtime, size × runtime)", facts.Tables)
	}
	if facts.Resources != 0 {
		t.Errorf("the page fetched %d resources; it must be self-contained", facts.Resources)
	}
	if errs := d.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	// compare.html, with the overlaid plots.
	cmpDir := t.TempDir()
	runs := []*Run{syntheticReport(t, "easy", 300, DefaultSeriesPoints, easyCfg), syntheticReport(t, "fcfs", 300, DefaultSeriesPoints, fcfsCfg)}
	rendered, err := WriteFigures(cmpDir, CompareFigures(runs))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(filepath.Join(cmpDir, "compare.html"), func(w io.Writer) error { return WriteCompareHTML(w, runs, rendered) }); err != nil {
		t.Fatal(err)
	}
	d.load(filepath.Join(cmpDir, "compare.html"))
	var cmp pageFacts
	if err := json.Unmarshal(d.call("POST", d.session+"/execute/sync", map[string]any{"script": factsScript, "args": []any{}}), &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Plots) != 3 || cmp.Tables != 1 || cmp.Resources != 0 {
		t.Errorf("compare.html: %d plots (want 3), %d tables (want 1), %d resources fetched (want 0)", len(cmp.Plots), cmp.Tables, cmp.Resources)
	}
	for i, wh := range cmp.Plots {
		if len(wh) != 2 || wh[0] < 200 || wh[1] < 100 {
			t.Errorf("compare plot %d rendered at %v pixels", i, wh)
		}
	}
	if errs := d.consoleErrors(); len(errs) > 0 {
		t.Errorf("compare.html console errors: %q", errs)
	}
	d.load(filepath.Join(dir, "report.html"))
	checkHover(t, d)
	checkSort(t, d)
	if errs := d.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors after hovering and sorting: %q", errs)
	}
	if shot := os.Getenv("SCHEDSIM_SCREENSHOT"); shot != "" {
		var b64 string
		json.Unmarshal(d.call("GET", d.session+"/screenshot", nil), &b64)
		png, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot in %s", shot)
	}
}

// hoverScript moves the pointer over a point of each figure that names
// values on hover and returns, per figure, the label the point has and the
// text the page's tooltip showed.
const hoverScript = `
const out = [];
document.querySelectorAll("script.hover").forEach(s => {
  const fig = document.getElementById("fig-" + s.dataset.for);
  const svg = fig.querySelector("svg");
  const pts = JSON.parse(s.textContent);
  const pt = pts[Math.floor(pts.length / 2)];
  fig.scrollIntoView();
  const p = svg.createSVGPoint();
  p.x = pt[0]; p.y = pt[1];
  const c = p.matrixTransform(svg.getScreenCTM());
  svg.dispatchEvent(new MouseEvent("mousemove", {clientX: c.x, clientY: c.y, bubbles: true}));
  const tip = document.querySelector(".tip");
  out.push({figure: s.dataset.for, want: pt[2], shown: tip.style.display !== "none" ? tip.textContent : ""});
});
return out;`

// checkHover checks that hovering a point of every figure shows its value.
func checkHover(t *testing.T, d *webDriver) {
	t.Helper()
	// A loaded machine may hand back the page before its scripts ran:
	// wait, up to a bound, for it to be complete.
	for deadline := time.Now().Add(20 * time.Second); ; {
		var ready bool
		json.Unmarshal(d.call("POST", d.session+"/execute/sync", map[string]any{
			"script": `return document.readyState === "complete" && document.querySelectorAll("script.hover").length > 0 && document.querySelector(".tip") !== null`,
			"args":   []any{}}), &ready)
		if ready || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var got []struct{ Figure, Want, Shown string }
	if err := json.Unmarshal(d.call("POST", d.session+"/execute/sync", map[string]any{"script": hoverScript, "args": []any{}}), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) < 4 {
		t.Errorf("%d figures name values on hover, want every one", len(got))
	}
	for _, h := range got {
		if h.Want == "" || h.Shown != h.Want {
			t.Errorf("%s: hovering a point showed %q, want %q", h.Figure, h.Shown, h.Want)
		}
	}
}

// sortScript clicks the "jobs" heading of the first sortable table with one,
// twice, and returns the column after each click.
const sortScript = `
const table = Array.from(document.querySelectorAll("table.sortable")).find(t => Array.from(t.tHead.rows[0].cells).some(c => c.textContent === "jobs"));
const col = Array.from(table.tHead.rows[0].cells).findIndex(c => c.textContent === "jobs");
const read = () => Array.from(table.tBodies[0].rows).map(r => parseFloat(r.cells[col].textContent));
table.tHead.rows[0].cells[col].click();
const first = read();
table.tHead.rows[0].cells[col].click();
return [first, read()];`

// checkSort checks that a click on a heading sorts its table down, a
// second click up.
func checkSort(t *testing.T, d *webDriver) {
	t.Helper()
	var cols [2][]float64
	if err := json.Unmarshal(d.call("POST", d.session+"/execute/sync", map[string]any{"script": sortScript, "args": []any{}}), &cols); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(cols[0]); i++ {
		if cols[0][i] > cols[0][i-1] || cols[1][i] < cols[1][i-1] {
			t.Fatalf("after one click %v, after two %v: want descending, then ascending", cols[0], cols[1])
		}
	}
}

// TestGanttInBrowser draws the canvas Gantt chart of 100,000 jobs: the
// page loads without console errors, the chart draws the jobs in view
// (every one at first), zooming in draws fewer, and the job under the
// pointer is named, its times counted from the first submission (the
// trace starts 500 days after its time 0), as every other plot's are.
func TestGanttInBrowser(t *testing.T) {
	d := startBrowser(t)
	const n, procs = 100000, 512
	g := NewGantt(PageGanttMaxJobs)
	var recs []sim.Record
	for i := 0; i < n; i++ {
		lo := (i * 37) % (procs - 16)
		start := workload.Time(500*86400 + i*60)
		j := &workload.Job{ID: int64(i + 1), Submit: start, Procs: 16, Run: 3600}
		recs = append(recs, sim.Record{Job: j, State: sim.Completed, Start: start, End: start + 3600, Alloc: []cluster.Range{{Lo: lo, Hi: lo + 16}}})
	}
	replay(recs, g)
	r := &Run{Name: "big", Summary: Summary{Trace: "big.swf", Policy: "fcfs", Procs: procs, Jobs: n, FirstSubmit: 500 * 86400}, Gantt: g}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := WriteFileAtomic(page, func(w io.Writer) error { return WriteRunHTML(w, r, nil) }); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	d.load(page)
	const script = `
const c = document.getElementById("gantt-canvas");
const ctx = c.getContext("2d");
const img = ctx.getImageData(0, 0, c.width, c.height).data;
let painted = 0;
for (let i = 3; i < img.length; i += 4) if (img[i] > 0) painted++;
const drawnAll = +c.dataset.drawn;
document.getElementById("gantt-in").click();
document.getElementById("gantt-in").click();
document.getElementById("gantt-in").click();
return new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
  const drawnZoomed = +c.dataset.drawn;
  const r = c.getBoundingClientRect();
  c.dispatchEvent(new MouseEvent("mousemove", {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true}));
  const tip = document.querySelector(".tip");
  done({drawnAll: drawnAll, drawnZoomed: drawnZoomed, painted: painted, pixels: img.length / 4,
        tip: tip.style.display !== "none" ? tip.textContent : "", resources: performance.getEntriesByType("resource").length});
})));`
	var got struct {
		DrawnAll, DrawnZoomed, Painted, Pixels, Resources int
		Tip                                               string
	}
	if err := json.Unmarshal(d.call("POST", d.session+"/execute/sync", map[string]any{"script": script, "args": []any{}}), &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("100k jobs: loaded and drawn in %v; %+v", time.Since(start), got)
	if got.DrawnAll != n {
		t.Errorf("the chart drew %d of %d jobs", got.DrawnAll, n)
	}
	if got.DrawnZoomed <= 0 || got.DrawnZoomed >= n/4 {
		t.Errorf("zoomed in 8 times, the chart drew %d jobs", got.DrawnZoomed)
	}
	if got.Painted < got.Pixels/4 {
		t.Errorf("%d of %d pixels painted", got.Painted, got.Pixels)
	}
	if !strings.HasPrefix(got.Tip, "job ") || !strings.Contains(got.Tip, "processors") {
		t.Errorf("the pointer over the chart shows %q, want a job", got.Tip)
	}
	if m := regexp.MustCompile(`, ([0-9.]+) days to`).FindStringSubmatch(got.Tip); m == nil {
		t.Errorf("the pointer over the chart shows %q, want its start in days", got.Tip)
	} else if d, _ := strconv.ParseFloat(m[1], 64); d > 70 {
		t.Errorf("the job under the pointer starts at %s days: not counted from the first submission (day 500 of the trace)", m[1])
	}
	if got.Resources != 0 {
		t.Errorf("the page fetched %d resources", got.Resources)
	}
	if errs := d.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
