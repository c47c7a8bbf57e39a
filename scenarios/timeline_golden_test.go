package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenTimelineScenarios have reviewed timelines: a Go scenario with
// faults and a relist (no-lost-events), one expressed as a file
// (watch-cache-window) and the stale relist with client-go's Reflector
// (multi-apiserver-stale-relist). A change to what they record shows as a
// diff of testdata/timelines/<name>.txt (-update rewrites them).
var goldenTimelineScenarios = []string{"no-lost-events", "watch-cache-window", "multi-apiserver-stale-relist"}

// TestTimelineGolden: each golden scenario, run with its own seed, records
// exactly the timeline in testdata/timelines, as `lw-sim explain` prints it.
func TestTimelineGolden(t *testing.T) {
	for _, name := range goldenTimelineScenarios {
		t.Run(name, func(t *testing.T) {
			sc, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(t.Context(), sc, RunOptions{})
			if err != nil {
				t.Fatalf("Run(%s) = %v", name, err)
			}
			var buf bytes.Buffer
			if err := res.Timeline.Write(&buf, ""); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "timelines", name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("timeline of %s differs from %s (-want +got; -update rewrites it):\n%s", name, path, diff)
			}
		})
	}
}
