package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// PageGanttMaxJobs is the most jobs (pieces of jobs that grew included)
// whose allocations the page's interactive Gantt chart can show; the static
// gantt.svg and gantt.png stay bounded by --gantt-max-jobs.
const PageGanttMaxJobs = 1 << 20

// DefaultPageGanttMaxJobs is --page-gantt-max-jobs' default: the page's
// chart for runs of up to that many jobs. Its data makes the page about
// 50 bytes a job and costs the run time to gather and write; a larger run
// asks for it explicitly.
const DefaultPageGanttMaxJobs = 200_000

// ganttPageData is the job data the page's canvas Gantt chart draws,
// embedded in the page as JSON with base64 arrays of little-endian int32:
// per rectangle (a job's contiguous processors) its start and duration in
// seconds after Origin, its first processor and count, and its job's index
// in IDs (a job killed at its limit has a negative index, −1 − i).
type ganttPageData struct {
	Origin int64 `json:"origin"`
	// ViewFrom is where the chart starts by default, in seconds after
	// Origin: where the jobs are (ganttView).
	ViewFrom int64  `json:"view_from"`
	Procs    int    `json:"procs"`
	Jobs     int    `json:"jobs"`
	Rects    int    `json:"rects"`
	Data     string `json:"data"`
	IDs      string `json:"ids"`
	// Epoch and Offset, with a calendar, place Origin on the wall clock
	// (Unix seconds of trace time 0, and the zone's offset from UTC at
	// the first start, in seconds); Zone names the zone.
	Epoch  *int64 `json:"epoch,omitempty"`
	Offset int    `json:"offset"`
	Zone   string `json:"zone,omitempty"`
	// Since, without a calendar, is the first submission of a job that
	// ran, in the data's units: times are labelled from it, as every
	// other plot's axis is ("time since the first submission").
	Since int64 `json:"since"`
	// Tick, for a run in a unit finer than the second, is how many of
	// the data's time units (Origin, ViewFrom and the rectangles') make a
	// second: the run's ticks, coarsened by powers of ten until the
	// chart's span fits the rectangles' 32-bit integers. 0 (left out):
	// seconds.
	Tick int64 `json:"tick,omitempty"`
}

// ganttJSON returns the canvas Gantt chart's data, or nil without a
// complete Gantt (hasPageGantt), as writeGanttJSON writes it.
func ganttJSON(r *Run) []byte {
	if !hasPageGantt(r) {
		return nil
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if writeGanttJSON(w, r) != nil || w.Flush() != nil {
		return nil
	}
	return b.Bytes()
}

// hasPageGantt reports whether r has data for the page's canvas Gantt
// chart: a complete Gantt of at least one job.
func hasPageGantt(r *Run) bool {
	return r.Gantt != nil && r.Gantt.Complete() && r.Gantt.n > 0
}

// writeGanttJSON writes the canvas Gantt chart's data of r, which must
// have some (hasPageGantt), to w. The jobs go in order of start, those
// that started together in the order they ended; the rectangles and job
// IDs are packed as little-endian int32 and base64-encoded straight into
// w's buffer, a piece at a time: the data of a long run (megabytes) are
// never held whole.
func writeGanttJSON(w *bufio.Writer, r *Run) error {
	g := r.Gantt
	order := g.pageOrder()
	// In a unit finer than the second, the times go in units of q ticks:
	// the finest power of ten whose span fits 32 bits.
	q, tick := int64(1), max(r.Tick, 1)
	if tick > 1 {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i := range g.n {
			lo, hi = min(lo, g.rec(i).start), max(hi, g.rec(i).end)
		}
		for q < tick && (hi-lo)/q >= math.MaxInt32 {
			q *= 10
		}
	}
	at := func(t int64) int64 { return floorDiv(t, q) }
	origin := at(g.rec(int(order[0])).start)
	n := g.nr
	put := func(b []byte, v int64) {
		v = max(min(v, math.MaxInt32), math.MinInt32)
		binary.LittleEndian.PutUint32(b, uint32(int32(v)))
	}
	// Where the chart starts by default: as ganttView, from the sorted
	// starts at hand.
	from, to := origin, int64(0)
	for i := range g.n {
		to = max(to, at(g.rec(i).end))
	}
	if k := len(order) / 20; k > 0 && 2*(at(g.rec(int(order[k])).start)-from) > to-from {
		from = at(g.rec(int(order[k])).start)
	}
	d := ganttPageData{Origin: origin, ViewFrom: from - origin, Procs: r.Summary.Procs, Jobs: g.n, Rects: n}
	if tick > 1 {
		d.Tick = tick / q
	}
	if r.Calendar == nil {
		d.Since = min(int64(r.Summary.FirstSubmit)*tick/q, origin)
	}
	if c := r.Calendar; c != nil {
		e := c.Epoch
		d.Epoch = &e
		_, d.Offset = c.At(workload.Time(origin * q)).Zone()
		d.Zone = c.ZoneName()
	}
	// The arrays go in as they are (base64 needs no escaping): encoding
	// megabytes of them through json.Marshal would scan every byte again.
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	const dataKey, idsKey = `"data":"`, `"ids":"`
	i := bytes.Index(b, []byte(dataKey+`"`))
	j := bytes.Index(b, []byte(idsKey+`"`))
	if i < 0 || j < i {
		return errors.New("report: the Gantt data have no place for their arrays")
	}
	i, j = i+len(dataKey), j+len(idsKey)
	// enc appends the base64 of a whole number of 3-byte groups to w's
	// buffer, so that the text is that of the whole array, which is never
	// made.
	enc := func(src []byte) {
		if w.Available() < base64.StdEncoding.EncodedLen(len(src)) {
			w.Flush() // an error stays in w, for the last Flush
		}
		w.Write(appendBase64(w.AvailableBuffer(), src))
	}
	w.Write(b[:i])
	// The rectangles are encoded a chunk at a time as they are packed;
	// the IDs, packed as they go by (reading the jobs again, in this
	// order, would take longer than keeping them), after.
	var chunk [20 * 48]byte
	c := 0
	ids := make([]byte, 4*g.n)
	for k, o := range order {
		job := g.rec(int(o))
		put(ids[4*k:], job.id)
		idx := int64(k)
		if job.killed {
			idx = -1 - idx
		}
		for _, a := range g.alloc(job) {
			rect := chunk[c : c+20]
			put(rect[0:], at(job.start)-origin)
			put(rect[4:], at(job.end)-at(job.start))
			put(rect[8:], int64(a.Lo))
			put(rect[12:], int64(a.Hi-a.Lo))
			put(rect[16:], idx)
			if c += 20; c == len(chunk) {
				enc(chunk[:])
				c = 0
			}
		}
	}
	enc(chunk[:c])
	w.Write(b[i:j])
	for len(ids) > len(chunk) {
		enc(ids[:len(chunk)])
		ids = ids[len(chunk):]
	}
	enc(ids)
	_, err = w.Write(b[j:])
	return err
}

// ganttOrder returns the indices of g's jobs in order of start, those that
// started together in the order they ended. The start (from the earliest)
// and the index are packed into one integer when they fit, which sorts
// (by radixSort) many times faster than comparing jobs.
func ganttOrder(g *Gantt) []int32 {
	order := make([]int32, g.n)
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range g.n {
		s := g.rec(i).start
		lo, hi = min(lo, s), max(hi, s)
	}
	// The index takes the bits its largest value needs, no more: the
	// fewer bits the keys have, the fewer passes the sort makes.
	idxBits := bits.Len(uint(g.n))
	if g.n <= 1<<21 && uint64(hi-lo) < 1<<(63-idxBits) {
		// A few linear passes of a radix sort, where a comparison sort
		// of a hundred thousand keys takes milliseconds.
		keys := make([]uint64, 2*g.n)
		keys, tmp := keys[:g.n], keys[g.n:]
		for i := range keys {
			keys[i] = uint64(g.rec(i).start-lo)<<idxBits | uint64(i)
		}
		radixSort(keys, tmp)
		for i, k := range keys {
			order[i] = int32(k & (1<<idxBits - 1))
		}
		return order
	}
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(g.rec(int(a)).start, g.rec(int(b)).start); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}

// pageScript makes report.html and compare.html explorable, with nothing
// fetched: values on hover over every plot (from the points each figure
// embeds), tables sorted by a click on a column's heading, and the canvas
// Gantt chart (zoom with the wheel or the buttons, pan by dragging, the
// job under the pointer named), which draws only the jobs in view.
const pageScript = `
(function () {
  "use strict";
  var tip = document.createElement("div");
  tip.className = "tip";
  document.body.appendChild(tip);
  function showTip(text, x, y) {
    tip.textContent = text;
    tip.style.display = "block";
    var w = tip.offsetWidth;
    tip.style.left = Math.min(x + 14, window.scrollX + document.documentElement.clientWidth - w - 8) + "px";
    tip.style.top = (y + 14) + "px";
  }
  function hideTip() { tip.style.display = "none"; }

  // Values on hover.
  document.querySelectorAll("script.hover").forEach(function (s) {
    var fig = document.getElementById("fig-" + s.dataset.for);
    if (!fig) return;
    var svg = fig.querySelector("svg");
    var pts = JSON.parse(s.textContent);
    if (!svg || !pts.length) return;
    var ns = "http://www.w3.org/2000/svg";
    var mark = document.createElementNS(ns, "circle");
    mark.setAttribute("r", "3.5");
    mark.setAttribute("class", "hovermark");
    mark.style.display = "none";
    svg.appendChild(mark);
    svg.addEventListener("mousemove", function (ev) {
      var ctm = svg.getScreenCTM();
      if (!ctm) return;
      var p = svg.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      p = p.matrixTransform(ctm.inverse());
      var best = -1, bd = 1e18;
      for (var i = 0; i < pts.length; i++) {
        var dx = pts[i][0] - p.x, dy = pts[i][1] - p.y, d = dx * dx + 0.15 * dy * dy;
        if (d < bd) { bd = d; best = i; }
      }
      if (best < 0 || bd > 40 * 40) { mark.style.display = "none"; hideTip(); return; }
      mark.setAttribute("cx", pts[best][0]);
      mark.setAttribute("cy", pts[best][1]);
      mark.style.display = "";
      showTip(pts[best][2], ev.pageX, ev.pageY);
    });
    svg.addEventListener("mouseleave", function () { mark.style.display = "none"; hideTip(); });
  });

  // Sortable tables.
  function cellValue(td) {
    var t = td.textContent.trim();
    var m = t.match(/^[-+]?[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?/i);
    if (!m) return { num: false, v: t };
    var v = parseFloat(m[0]);
    if (/ min\b/.test(t)) v *= 60; else if (/ h\b/.test(t)) v *= 3600; else if (/ days\b/.test(t)) v *= 86400;
    return { num: true, v: v };
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var ths = table.querySelectorAll("thead th");
    ths.forEach(function (th, col) {
      th.title = "sort by this column";
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var dir = th.dataset.dir === "desc" ? 1 : -1;
        ths.forEach(function (o) { delete o.dataset.dir; });
        th.dataset.dir = dir < 0 ? "desc" : "asc";
        var keep = rows.filter(function (r) { return r.cells[0].classList.contains("rest"); });
        rows = rows.filter(function (r) { return !r.cells[0].classList.contains("rest"); });
        rows.sort(function (a, b) {
          var x = cellValue(a.cells[col]), y = cellValue(b.cells[col]);
          if (x.num && y.num) return dir * (x.v - y.v);
          if (x.num !== y.num) return x.num ? -1 : 1;
          return dir * (x.v < y.v ? -1 : x.v > y.v ? 1 : 0);
        });
        rows.concat(keep).forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  // The canvas Gantt chart.
  var gd = document.getElementById("gantt-data");
  var canvas = document.getElementById("gantt-canvas");
  if (!gd || !canvas) return;
  var g = JSON.parse(gd.textContent);
  function ints(b64) {
    var s = atob(b64), n = s.length >> 2, out = new Int32Array(n);
    for (var i = 0, k = 0; i < n; i++, k += 4)
      out[i] = s.charCodeAt(k) | (s.charCodeAt(k + 1) << 8) | (s.charCodeAt(k + 2) << 16) | (s.charCodeAt(k + 3) << 24);
    return out;
  }
  var R = ints(g.data), IDS = ints(g.ids), n = g.rects;
  var maxDur = 0, t1 = 0;
  for (var i = 0; i < n; i++) {
    var e = R[5 * i] + R[5 * i + 1];
    if (R[5 * i + 1] > maxDur) maxDur = R[5 * i + 1];
    if (e > t1) t1 = e;
  }
  var full = [0, Math.max(t1, 1)];
  var view = [Math.min(g.view_from, full[1] - 1), full[1]];
  var ctx = canvas.getContext("2d");
  var dpr = window.devicePixelRatio || 1;
  var W = 0, H = 0, pad = { l: 50, r: 10, t: 10, b: 28 };
  function fmtTime(t) {
    if (g.epoch !== undefined) {
      var d = new Date((g.epoch + g.origin + t + g.offset) * 1000);
      return d.toISOString().replace("T", " ").slice(0, 16) + " " + g.zone;
    }
    var s = g.origin + t - g.since;
    if (s < 7200) return s + " s";
    if (s < 172800) return (s / 3600).toFixed(1) + " h";
    return (s / 86400).toFixed(2) + " days";
  }
  function colour(i) { var h = (i * 137.508) % 360; return "hsl(" + h.toFixed(0) + ",55%,62%)"; }
  // The first rectangle that may be in view: starts are sorted.
  function firstFrom(t) {
    var lo = 0, hi = n;
    while (lo < hi) { var m = (lo + hi) >> 1; if (R[5 * m] < t) lo = m + 1; else hi = m; }
    return lo;
  }
  var drawn = 0;
  function draw() {
    W = canvas.clientWidth; H = canvas.clientHeight;
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    var pw = W - pad.l - pad.r, ph = H - pad.t - pad.b;
    var sx = pw / (view[1] - view[0]), sy = ph / g.procs;
    ctx.save();
    ctx.beginPath(); ctx.rect(pad.l, pad.t, pw, ph); ctx.clip();
    drawn = 0;
    var killed = [];
    for (var i = firstFrom(view[0] - maxDur); i < n; i++) {
      var s = R[5 * i];
      if (s > view[1]) break;
      var e = s + R[5 * i + 1];
      if (e < view[0]) continue;
      var x = pad.l + (s - view[0]) * sx, w = Math.max((e - s) * sx, 0.7);
      var y = pad.t + ph - (R[5 * i + 2] + R[5 * i + 3]) * sy, h = Math.max(R[5 * i + 3] * sy, 0.7);
      var j = R[5 * i + 4];
      ctx.fillStyle = colour(j < 0 ? -1 - j : j);
      ctx.fillRect(x, y, w, h);
      if (j < 0 && w > 3 && h > 3) killed.push([x, y, w, h]);
      drawn++;
    }
    ctx.strokeStyle = "#c00"; ctx.lineWidth = 1;
    killed.forEach(function (k) { ctx.strokeRect(k[0] + 0.5, k[1] + 0.5, k[2] - 1, k[3] - 1); });
    ctx.restore();
    ctx.strokeStyle = "#888"; ctx.strokeRect(pad.l, pad.t, pw, ph);
    ctx.fillStyle = "#333"; ctx.font = "11px 'Liberation Sans', Arial, sans-serif";
    ctx.textAlign = "center";
    for (var k = 0; k <= 4; k++) {
      var t = view[0] + (view[1] - view[0]) * k / 4;
      ctx.textAlign = k === 0 ? "left" : k === 4 ? "right" : "center";
      ctx.fillText(fmtTime(t), pad.l + pw * k / 4, H - 8);
    }
    ctx.textAlign = "right";
    ctx.fillText("0", pad.l - 4, pad.t + ph);
    ctx.fillText(String(g.procs), pad.l - 4, pad.t + 10);
    canvas.dataset.drawn = drawn;
    document.getElementById("gantt-status").textContent = drawn + " of " + n + " rectangles in view (" + g.jobs + " jobs)";
  }
  var pending = false;
  function redraw() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(); }); } }
  function zoom(f, cx) {
    var pw = W - pad.l - pad.r;
    var at = view[0] + (view[1] - view[0]) * Math.min(Math.max((cx - pad.l) / pw, 0), 1);
    var span = Math.max((view[1] - view[0]) * f, 10);
    view = [at - (at - view[0]) * span / (view[1] - view[0]), 0];
    view[1] = view[0] + span;
    redraw();
  }
  canvas.addEventListener("wheel", function (ev) { ev.preventDefault(); zoom(ev.deltaY > 0 ? 1.25 : 0.8, ev.offsetX); }, { passive: false });
  var drag = null;
  canvas.addEventListener("mousedown", function (ev) { drag = [ev.clientX, view[0], view[1]]; });
  window.addEventListener("mouseup", function () { drag = null; });
  canvas.addEventListener("mousemove", function (ev) {
    var pw = W - pad.l - pad.r, ph = H - pad.t - pad.b;
    if (drag) {
      var dt = (ev.clientX - drag[0]) / pw * (drag[2] - drag[1]);
      view = [drag[1] - dt, drag[2] - dt];
      redraw();
      hideTip();
      return;
    }
    var t = view[0] + (ev.offsetX - pad.l) / pw * (view[1] - view[0]);
    var proc = (pad.t + ph - ev.offsetY) / ph * g.procs;
    var tol = 2 * (view[1] - view[0]) / pw;
    for (var i = Math.min(firstFrom(t + tol + 1), n) - 1; i >= 0 && R[5 * i] >= t - maxDur - tol; i--) {
      var s = R[5 * i], e = s + R[5 * i + 1];
      if (t >= s - tol && t <= e + tol && proc >= R[5 * i + 2] && proc <= R[5 * i + 2] + R[5 * i + 3]) {
        var j = R[5 * i + 4], idx = j < 0 ? -1 - j : j;
        showTip("job " + IDS[idx] + ": processors " + R[5 * i + 2] + "–" + (R[5 * i + 2] + R[5 * i + 3] - 1) +
          ", " + fmtTime(s) + " to " + fmtTime(e) + " (" + (e - s) + " s)" + (j < 0 ? ", killed at its limit" : ""), ev.pageX, ev.pageY);
        return;
      }
    }
    hideTip();
  });
  canvas.addEventListener("mouseleave", hideTip);
  document.getElementById("gantt-in").addEventListener("click", function () { zoom(0.5, pad.l + (W - pad.l - pad.r) / 2); });
  document.getElementById("gantt-out").addEventListener("click", function () { zoom(2, pad.l + (W - pad.l - pad.r) / 2); });
  document.getElementById("gantt-reset").addEventListener("click", function () { view = full.slice(); redraw(); });
  window.addEventListener("resize", redraw);
  draw();
})();
`

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	if b == 1 {
		return a
	}
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// fmtTimeSeconds is pageScript's time formatter for the canvas Gantt
// chart's data in seconds; fmtTimeTicks replaces it in the page of a run
// in a finer unit (tickPageScript), whose data say how many of their
// units make a second (ganttPageData.Tick). Pages of runs in seconds keep
// pageScript as it was.
const fmtTimeSeconds = `  function fmtTime(t) {
    if (g.epoch !== undefined) {
      var d = new Date((g.epoch + g.origin + t + g.offset) * 1000);
      return d.toISOString().replace("T", " ").slice(0, 16) + " " + g.zone;
    }
    var s = g.origin + t - g.since;`

const fmtTimeTicks = `  var perSec = g.tick || 1; // the data's time units in a second
  function fmtTime(t) {
    if (g.epoch !== undefined) {
      var d = new Date((g.epoch + g.offset) * 1000 + (g.origin + t) * 1000 / perSec);
      return d.toISOString().replace("T", " ").slice(0, 16) + " " + g.zone;
    }
    var s = (g.origin + t - g.since) / perSec;
    if (perSec > 1 && s < 7200) return +s.toFixed(3) + " s";`

// tickPageScript is pageScript for a run in a unit finer than the second.
var tickPageScript = func() string {
	s := strings.Replace(pageScript, fmtTimeSeconds, fmtTimeTicks, 1)
	if s == pageScript {
		panic("report: pageScript lacks the time formatter fmtTimeSeconds")
	}
	return s
}()
