package scenarios

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenHTMLScenario has a golden page: it has writes, faults, both
// horizons, requests, responses and events.
const goldenHTMLScenario = "watch-breaks"

// renderHTML runs the scenario called name with its own seed and returns
// its page.
//
// manyLanesPage is no scenario: its page is that of manyLanesBase with
// client lanes added up to manyLanes, for the layout of many lanes.
func renderHTML(t *testing.T, name string) []byte {
	t.Helper()
	run := name
	if name == manyLanesPage {
		run = manyLanesBase
	}
	sc, err := Lookup(run)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), sc, RunOptions{})
	if err != nil {
		t.Fatalf("Run(%s) = %v", name, err)
	}
	if name == manyLanesPage {
		lanes, servers := laneNames(res.Timeline)
		for i := len(lanes) + len(servers); i < manyLanes; i++ {
			res.Timeline = append(res.Timeline, Entry{At: res.Timeline[len(res.Timeline)-1].At, Kind: KindClient, Lane: fmt.Sprintf("informer-%02d-of-many", i), Text: "a lane of its own"})
		}
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, sc, res); err != nil {
		t.Fatalf("WriteHTML(%s) = %v", name, err)
	}
	return buf.Bytes()
}

// TestHTMLGolden: the page of a run is deterministic, and reviewed: a
// change to it shows as a diff of testdata/<scenario>.html (go test
// -run TestHTMLGolden ./scenarios/ -update rewrites it).
func TestHTMLGolden(t *testing.T) {
	got := renderHTML(t, goldenHTMLScenario)
	path := filepath.Join("testdata", goldenHTMLScenario+".html")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("WriteHTML(%s) differs from %s (-want +got; -update rewrites it):\n%s", goldenHTMLScenario, path, diff)
	}
}

// externalRef matches what would make a browser fetch something: a src or
// href attribute, a stylesheet link, an @import or a url() that is not a
// fragment of the page itself.
var externalRef = regexp.MustCompile(`(?i)\ssrc=|\shref=|<link|@import|url\((?:[^#)]|$)`)

// TestHTMLSelfContained: every scenario's page needs nothing from the
// network, and has a lane per client, the server's lane (or a lane per
// apiserver) and the axis.
func TestHTMLSelfContained(t *testing.T) {
	for _, sc := range Library() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			page := string(renderHTML(t, sc.Name))
			if m := externalRef.FindString(page); m != "" {
				t.Errorf("page of %s refers to something outside it: %q", sc.Name, m)
			}
			for _, want := range []string{`<g class="lane server"`, `data-axis="resourceVersion"`, "In short: "} {
				if !strings.Contains(page, want) {
					t.Errorf("page of %s lacks %s", sc.Name, want)
				}
			}
		})
	}
}

// chromium runs headless Chromium on the page at path with args and
// returns its standard output. It skips the test when Chromium is not
// installed.
func chromium(t *testing.T, path string, args ...string) []byte {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("chromium is not installed: `make html-check` installs Debian's chromium and runs this test")
	}
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+path)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	return out
}

// manyLanesPage is the page of manyLanesBase's run with manyLanes lanes.
const (
	manyLanesPage = "many-lanes"
	manyLanesBase = "watch-resumed-on-lagging-apiserver"
	manyLanes     = 40
)

// htmlWindowWidth is the browser window the pages must fit: no lane, label
// or text past its right edge.
const htmlWindowWidth = 1400

// chromiumChecks are the scenarios TestHTMLInChromium renders and what
// Chromium's DOM of each must hold: lanes (data-lane), streams and why
// they ended (data-end), rows' arrows and marks (data-class), time gaps
// (data-gap) and other parts, each at least as often as given.
var chromiumChecks = map[string]map[string]int{
	"no-lost-events": { // a listwatch client's lane, a restart, a 410
		`data-lane="scenario"`: 1, `data-lane="listwatch"`: 1, `data-lane="kube-apiserver"`: 1,
		`data-end="end-timeout"`: 1, `data-end="end-restart"`: 2, `data-end="end-error"`: 1,
		`data-class="fault-restart"`: 1, `data-gap="5s"`: 1,
	},
	"watch-cut-and-hang": { // cut and hung streams, a 2m30s break
		`data-lane="listwatch"`: 1, `data-lane="raw-http"`: 1, `data-lane="client-go"`: 1,
		`data-end="end-cut"`: 2, `data-end="end-hang"`: 2, `data-class="fault-cut"`: 1, `data-class="fault-hang"`: 1,
		`class="gap break"`: 1, `class="streambar hung"`: 2,
	},
	"watch-timeout": { // an 8 s bookmark against a 30 min timeout; the cases that prove it
		`data-end="end-timeout"`: 2, `data-class="event-bookmark"`: 1, `data-gap="8s"`: 1, `class="gap break"`: 2,
		`<p class="proves">`: 1, `<code>WatchBookmarkBeforeDeadline</code>`: 1,
	},
	"watch-list-vs-paging": { // page sizes and continue tokens
		`data-lane="pager"`: 1, `data-lane="list-rv0"`: 1, `data-lane="watch-list"`: 1,
		`class="size"`: 5, `class="tokendot"`: 4,
	},
	"watch-resumed-on-lagging-apiserver": { // a lane per apiserver, a 410
		`data-lane="apiserver-0"`: 1, `data-lane="apiserver-1"`: 1, `data-lane="etcd"`: 1,
		`data-end="end-error"`: 1, `data-end="end-restart"`: 1, `data-class="event-error"`: 1,
	},
	"slow-consumer": { // a watcher the server dropped as too slow
		`data-end="end-slow"`: 1,
	},
	"multi-apiserver-stale-relist": { // client-go Reflectors' events on their bars, their 410s ending them
		`data-class="event"`: 5, `data-class="event-error"`: 2, `data-end="end-error"`: 2,
	},
	manyLanesPage: { // 40 lanes, their names turned up, in 1400 px
		`data-lane="informer-39-of-many"`: 1, `data-lane="etcd"`: 1, `data-end="end-error"`: 1,
	},
	"relist-back-in-time": { // a 504 in the error colour, LISTs that wait
		`data-class="response-error"`: 1, `data-lane="apiserver-1"`: 1, `class="wait"`: 2,
	},
}

// svgWidthRE finds the diagram's width in the DOM.
var svgWidthRE = regexp.MustCompile(`<svg id="timeline"[^>]* width="(\d+)"`)

// TestHTMLInChromium renders pages in headless Chromium in a window
// htmlWindowWidth wide: the DOM it builds has the lanes, one row per
// timeline entry and what chromiumChecks lists, and the diagram is no
// wider than the window less the page's margins; the screenshot is a
// picture, not a blank page, with nothing drawn in the right margin.
// LWSIM_SCREENSHOTS=DIR keeps the screenshots as DIR/<scenario>.png.
func TestHTMLInChromium(t *testing.T) {
	for name, want := range chromiumChecks {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name+".html")
			page := renderHTML(t, name)
			if err := os.WriteFile(path, page, 0o644); err != nil {
				t.Fatal(err)
			}
			window := func(h int) string { return "--window-size=" + strconv.Itoa(htmlWindowWidth) + "," + strconv.Itoa(h) }

			dom := string(chromium(t, path, window(1200), "--dump-dom"))
			for part, n := range want {
				if got := strings.Count(dom, part); got < n {
					t.Errorf("Chromium's DOM of %s has %s %d times, want at least %d", name, part, got, n)
				}
			}
			if got, want := strings.Count(dom, `<g class="row `), strings.Count(string(page), `<g class="row `); got != want || got == 0 {
				t.Errorf("Chromium's DOM of %s has %d timeline rows, want %d (> 0)", name, got, want)
			}
			m := svgWidthRE.FindStringSubmatch(dom)
			if m == nil {
				t.Fatalf("Chromium's DOM of %s has no timeline", name)
			}
			if w, _ := strconv.Atoi(m[1]); w > htmlWindowWidth-2*24 {
				t.Errorf("the timeline of %s is %d px wide: it overflows a %d px window (24 px margins)", name, w, htmlWindowWidth)
			}

			shot := filepath.Join(dir, name+".png")
			if keep := os.Getenv("LWSIM_SCREENSHOTS"); keep != "" {
				shot = filepath.Join(keep, name+".png")
			}
			// Tall enough for the whole page: the diagram and the text
			// above it.
			chromium(t, path, window(diagramHeight(page)+1000), "--screenshot="+shot)
			img := readPNG(t, shot)
			colours, inked := inkStats(img)
			// A rendered diagram has text, lanes, arrows and shading:
			// dozens of colours (anti-aliasing adds more) and a good
			// share of non-white.
			if colours < 16 || inked < 0.03 {
				t.Errorf("screenshot of %s has %d colours, %.1f%% non-white pixels: want a drawing (>= 16 colours, >= 3%%)", name, colours, 100*inked)
			}
			b := img.Bounds()
			if right := inkIn(img, image.Rect(b.Max.X-20, b.Min.Y, b.Max.X, b.Max.Y)); right > 0 {
				t.Errorf("screenshot of %s has %d non-white pixels in the right 20 px: something overflows the window", name, right)
			}
		})
	}
}

// diagramHeight is the timeline's height in page.
func diagramHeight(page []byte) int {
	m := regexp.MustCompile(`<svg id="timeline"[^>]* height="(\d+)"`).FindSubmatch(page)
	if m == nil {
		return 0
	}
	h, _ := strconv.Atoi(string(m[1]))
	return h
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	return img
}

// inkIn counts the pixels of img within r that are not white.
func inkIn(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c, g, b, _ := img.At(x, y).RGBA(); c < 0xf000 || g < 0xf000 || b < 0xf000 {
				n++
			}
		}
	}
	return n
}

// inkStats counts the distinct colours of img and the share of its pixels
// that are not white.
func inkStats(img image.Image) (colours int, inked float64) {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return len(seen), float64(n) / float64(b.Dx()*b.Dy())
}
