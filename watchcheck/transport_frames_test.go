package watchcheck_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/watchcheck"
)

// capturedStream is a JSON watch stream kube-apiserver v1.37 wrote: ADDED,
// ADDED, MODIFIED, DELETED, BOOKMARK, ERROR, one frame per line.
func capturedStream(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("../internal/kubewire/testdata/watch-run1.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// clientEvents is the oracle: each line decoded as client-go's dynamic
// client does (an Unstructured object) and reduced by FromWatchEvent.
func clientEvents(t testing.TB, stream []byte) []watchcheck.Event {
	t.Helper()
	var out []watchcheck.Event
	for _, line := range strings.Split(strings.TrimSuffix(string(stream), "\n"), "\n") {
		var f struct {
			Type   watch.EventType
			Object json.RawMessage
		}
		var u unstructured.Unstructured
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		if err := u.UnmarshalJSON(f.Object); err != nil {
			t.Fatal(err)
		}
		e, err := watchcheck.FromWatchEvent(watch.Event{Type: f.Type, Object: &u})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// bodyTransport answers every request with a 200 JSON response whose body
// is read in the given chunk sizes (the last one repeated).
type bodyTransport struct {
	body   []byte
	chunks []int
}

func (b bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(&chunkedReader{data: b.body, chunks: b.chunks}),
		Request:    req,
	}, nil
}

// chunkedReader returns at most chunks[i] bytes on its i-th read.
type chunkedReader struct {
	data   []byte
	chunks []int
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := r.chunks[0]
	if len(r.chunks) > 1 {
		r.chunks = r.chunks[1:]
	}
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// readWatch sends one watch request through a recording Transport in
// front of rt, reads the whole body, and returns what was recorded.
func readWatch(t *rapid.T, rt http.RoundTripper) []watchcheck.Event {
	var rec watchcheck.Transport
	req, err := http.NewRequest(http.MethodGet, "http://x/api/v1/namespaces/t1/configmaps?watch=true&resourceVersion=71", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rec.Wrap(rt).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	streams := rec.Streams()
	if len(streams) != 1 {
		t.Fatalf("recorded %d streams (skipped %d), want 1", len(streams), rec.Skipped())
	}
	return streams[0].Events
}

// indented is stream with each frame spread over several lines, as a
// JSON decoder (client-go's framer) still reads it.
func indented(t testing.TB, stream []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(string(stream), "\n") {
		if line == "" {
			continue
		}
		if err := json.Indent(&out, []byte(line), "", "  "); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestTransportRecordsWholeFramesAnyChunking: however the client's reads
// split the stream, and whether or not frames span lines, the Transport
// records exactly the events of the whole frames, as client-go decodes
// them; a frame cut short at the end (a reset mid-event) is not recorded.
func TestTransportRecordsWholeFramesAnyChunking(t *testing.T) {
	stream := capturedStream(t)
	want := clientEvents(t, stream)
	multiline := indented(t, stream)
	rapid.Check(t, func(t *rapid.T) {
		chunks := rapid.SliceOfN(rapid.IntRange(1, 400), 1, 50).Draw(t, "chunks")
		body := stream
		if rapid.Bool().Draw(t, "multiline") {
			body = multiline
		}
		if cut := rapid.IntRange(0, 200).Draw(t, "cut"); cut > 0 {
			// The first frame again, cut before its end.
			body = append(bytes.Clone(body), body[:cut]...)
		}
		got := readWatch(t, bodyTransport{body: body, chunks: chunks})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("recorded events (-want +got):\n%s", diff)
		}
	})
}

// TestTransportStopsAtUndecodableFrame: a frame that is not JSON ends the
// recording there, as it ends the client's watch; the frames before it
// are recorded.
func TestTransportStopsAtUndecodableFrame(t *testing.T) {
	stream := capturedStream(t)
	lines := strings.SplitAfter(string(stream), "\n")
	body := []byte(lines[0] + lines[1] + "{\"type\":\"ADDED\",\"object\":{]}\n" + lines[2])
	want := clientEvents(t, []byte(lines[0]+lines[1]))
	rapid.Check(t, func(t *rapid.T) {
		chunks := rapid.SliceOfN(rapid.IntRange(1, 2000), 1, 10).Draw(t, "chunks")
		got := readWatch(t, bodyTransport{body: body, chunks: chunks})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("recorded events (-want +got):\n%s", diff)
		}
	})
}

// TestTransportStreamParameters: a watch is told from other requests, and
// its resource, namespace, start and selectors read from the request, as
// kube-apiserver reads them (a watch path verb, ?watch= with the
// query-boolean rule); a watch of one object by its path selects it by
// metadata.name.
func TestTransportStreamParameters(t *testing.T) {
	t.Parallel()
	type stream struct {
		Resource, Namespace string
		StartRV             int64
		InitialEvents       bool
		Selector            string
		FieldSelector       string
	}
	for _, c := range []struct {
		url     string
		want    []stream
		skipped int
	}{
		{url: "/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=5&labelSelector=app%3Dx",
			want: []stream{{Resource: "configmaps", Namespace: "ns", StartRV: 5, Selector: "app=x"}}},
		{url: "/apis/apps/v1/deployments?watch=True&resourceVersion=0",
			want: []stream{{Resource: "deployments.apps", InitialEvents: true}}},
		{url: "/api/v1/watch/namespaces/ns/pods?resourceVersion=7&sendInitialEvents=true",
			want: []stream{{Resource: "pods", Namespace: "ns", StartRV: 7, InitialEvents: true}}},
		{url: "/api/v1/namespaces?watch=1&resourceVersion=3",
			want: []stream{{Resource: "namespaces", StartRV: 3}}},
		{url: "/api/v1/namespaces/ns/configmaps?watch=false"},
		{url: "/api/v1/namespaces/ns/configmaps/a?watch=true"},
		{url: "/api/v1/watch/namespaces/ns/configmaps/a",
			want: []stream{{Resource: "configmaps", Namespace: "ns", InitialEvents: true, FieldSelector: "metadata.name=a"}}},
		{url: "/api/v1/namespaces/ns/secrets?watch=true&resourceVersion=4&fieldSelector=type%3Dx%2Cmetadata.name%21%3Db",
			want: []stream{{Resource: "secrets", Namespace: "ns", StartRV: 4, FieldSelector: "metadata.name!=b,type=x"}}},
		{url: "/api/v1/namespaces/ns/secrets?watch=true&fieldSelector=type%3D%3D%3Dx", skipped: 1},
		{url: "/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=x", skipped: 1},
	} {
		var rec watchcheck.Transport
		req, err := http.NewRequest(http.MethodGet, "http://x"+c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rec.Wrap(bodyTransport{chunks: []int{1}}).RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		var got []stream
		for _, s := range rec.Streams() {
			g := stream{Resource: s.Resource, Namespace: s.Namespace, StartRV: s.StartRV, InitialEvents: s.InitialEvents}
			if s.Selector != nil {
				g.Selector = s.Selector.String()
			}
			if s.FieldSelector != nil {
				g.FieldSelector = s.FieldSelector.String()
			}
			got = append(got, g)
		}
		if diff := cmp.Diff(c.want, got); diff != "" || rec.Skipped() != c.skipped {
			t.Errorf("%s: skipped %d, want %d; streams (-want +got):\n%s", c.url, rec.Skipped(), c.skipped, diff)
		}
	}
}
