package scenarios

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
func renderHTML(t *testing.T, name string) []byte {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), sc, RunOptions{})
	if err != nil {
		t.Fatalf("Run(%s) = %v", name, err)
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
// network, and has a lane per client, the server's lane and the axis.
func TestHTMLSelfContained(t *testing.T) {
	for _, sc := range Library() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			page := string(renderHTML(t, sc.Name))
			if m := externalRef.FindString(page); m != "" {
				t.Errorf("page of %s refers to something outside it: %q", sc.Name, m)
			}
			for _, want := range []string{`data-lane="kube-apiserver"`, `data-axis="resourceVersion"`, "In short: "} {
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
		"--user-data-dir=" + t.TempDir(), "--window-size=1600,1200"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+path)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	return out
}

// TestHTMLInChromium renders a page in headless Chromium: the DOM it
// builds has the lanes, one row per timeline entry, and the screenshot is
// a picture, not a blank page. LWSIM_SCREENSHOT=FILE keeps the screenshot.
func TestHTMLInChromium(t *testing.T) {
	const name = "no-lost-events" // has a listwatch client's lane
	dir := t.TempDir()
	path := filepath.Join(dir, name+".html")
	page := renderHTML(t, name)
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}

	dom := string(chromium(t, path, "--dump-dom"))
	for _, lane := range []string{"scenario", "listwatch", "kube-apiserver"} {
		if !strings.Contains(dom, `data-lane="`+lane+`"`) {
			t.Errorf("Chromium's DOM of %s lacks the lane %q", name, lane)
		}
	}
	if got, want := strings.Count(dom, `<g class="row `), strings.Count(string(page), `<g class="row `); got != want || got == 0 {
		t.Errorf("Chromium's DOM of %s has %d timeline rows, want %d (> 0)", name, got, want)
	}

	shot := filepath.Join(dir, name+".png")
	if keep := os.Getenv("LWSIM_SCREENSHOT"); keep != "" {
		shot = keep
	}
	chromium(t, path, "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	colours, inked := inkStats(img)
	// A rendered diagram has text, lanes, arrows and shading: dozens of
	// colours (anti-aliasing adds more) and a good share of non-white.
	if colours < 16 || inked < 0.03 {
		t.Errorf("screenshot of %s has %d colours, %.1f%% non-white pixels: want a drawing (>= 16 colours, >= 3%%)", name, colours, 100*inked)
	}
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
