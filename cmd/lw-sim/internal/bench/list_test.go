package bench

import (
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestIdentityClientGetsPlainPages checks the clientset of the no-gzip
// client-go rows: a page over the 128 KiB the fake gzips above comes back
// gzipped and transparently decompressed to client-go's default clientset,
// and plain to the identity one, which lists the same pods.
func TestIdentityClientGetsPlainPages(t *testing.T) {
	// About 950 bytes a pod in protobuf: 200 make a 190 KB page.
	f, _ := startFakeWithPods(t, "p", 200)
	rec := &encodingRecorder{next: http.DefaultTransport}
	hc := &http.Client{Transport: rec}
	cfg := rest.CopyConfig(f.Target.Config)
	cfg.ContentType = protobufType
	var names [2][]string
	for i, client := range []*http.Client{hc, identityClient(hc)} {
		cs, err := kubernetes.NewForConfigAndClient(cfg, client)
		if err != nil {
			t.Fatal(err)
		}
		l, err := cs.CoreV1().Pods("p").List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Items {
			names[i] = append(names[i], p.Name)
		}
	}
	if want := []bool{true, false}; !cmp.Equal(rec.uncompressed, want) {
		t.Errorf("responses decompressed by the transport: %v, want %v (default, identity)", rec.uncompressed, want)
	}
	if len(names[0]) != 200 {
		t.Errorf("default clientset listed %d pods, want 200", len(names[0]))
	}
	if diff := cmp.Diff(names[0], names[1]); diff != "" {
		t.Errorf("identity clientset's pods differ (-default +identity):\n%s", diff)
	}
}

// encodingRecorder records, for each response, whether Go's transport
// decompressed it (http.Response.Uncompressed).
type encodingRecorder struct {
	next         http.RoundTripper
	mu           sync.Mutex
	uncompressed []bool
}

func (r *encodingRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.uncompressed = append(r.uncompressed, resp.Uncompressed)
		r.mu.Unlock()
	}
	return resp, err
}
