package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestReplaysServeTheRecordedTraversal checks the floor rows' clients: each
// of the four replaying clientsets (memory and loopback, gzip and
// identity) pages through exactly the pods, pages and continue tokens the
// live clientset does, and a request that was never recorded fails rather
// than being answered with some other page.
func TestReplaysServeTheRecordedTraversal(t *testing.T) {
	// About 950 bytes a pod in protobuf: pages of 150 are over the 128 KiB
	// the fake gzips above, so the gzip recordings hold gzip bodies.
	_, c := startFakeWithPods(t, "r", 400)
	const limit = 150
	set, err := newReplaySet(t.Context(), c, "r", limit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := set.Close(); err != nil {
			t.Errorf("close replay servers: %v", err)
		}
	})
	want := pagesOf(t, c.cs, limit, "")
	if len(want) != 3 {
		t.Fatalf("live traversal has %d pages, want 3", len(want))
	}
	for name, cs := range map[string]kubernetes.Interface{"memory gzip": set.memoryZipped, "memory identity": set.memoryPlain,
		"loopback gzip": set.wireZipped, "loopback identity": set.wirePlain} {
		if diff := cmp.Diff(want, pagesOf(t, cs, limit, "")); diff != "" {
			t.Errorf("%s replay differs from the live traversal (-live +replay):\n%s", name, diff)
		}
		if _, err := cs.CoreV1().Pods("r").List(t.Context(), metav1.ListOptions{Limit: limit + 1}); err == nil {
			t.Errorf("%s replay answered a request it never recorded", name)
		}
	}
	// The two full pages are over the threshold; the last, of 100 pods,
	// is not, and travels plain either way.
	for name, c := range map[string]struct {
		rec    *recording
		zipped int
	}{"gzip": {set.servers[0].rec, 2}, "identity": {set.servers[1].rec, 0}} {
		zipped := 0
		for _, r := range c.rec.resp {
			if r.header.Get("Content-Encoding") == "gzip" {
				zipped++
			}
		}
		if zipped != c.zipped {
			t.Errorf("%s recording: %d of %d bodies gzipped, want %d", name, zipped, len(c.rec.resp), c.zipped)
		}
	}
}

// page is what a test compares of one LIST page.
type page struct {
	Names    []string
	Continue string
}

// pagesOf pages through namespace r's pods with cs, limit at a time.
func pagesOf(t *testing.T, cs kubernetes.Interface, limit int64, cont string) []page {
	t.Helper()
	var pages []page
	for {
		l, err := cs.CoreV1().Pods("r").List(t.Context(), metav1.ListOptions{Limit: limit, Continue: cont})
		if err != nil {
			t.Fatal(err)
		}
		var p page
		for _, pod := range l.Items {
			p.Names = append(p.Names, pod.Name)
		}
		p.Continue = l.Continue
		pages = append(pages, p)
		if cont = l.Continue; cont == "" {
			return pages
		}
	}
}
