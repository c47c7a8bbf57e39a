package fakeapiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestListPagesConcurrentBuffers checks that LIST pages encoded into the
// server's recycled buffers stay intact under concurrency: goroutines each
// list their own page (a different limit each) many times, in JSON and
// protobuf, over HTTP, and every answer must equal the goroutine's first.
// A buffer or a store read's arrays handed back before the body was
// written, or to two pages at once, would mix one page's bytes into
// another's. Half the pages are long enough for their encodings to be
// packed (store.PackSlots) while the others read them.
func TestListPagesConcurrentBuffers(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	for i := range 60 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}, Data: map[string]string{"i": fmt.Sprint(i)}}
		if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rv := srv.store.CurrentRV()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	for g := range 8 {
		accept := []string{"application/json", "application/vnd.kubernetes.protobuf"}[g%2]
		limit := 3 + g
		if g >= 4 {
			limit = 17 + g // at least 16 items: packed
		}
		path := fmt.Sprintf("/api/v1/namespaces/default/configmaps?limit=%d&resourceVersion=%d&resourceVersionMatch=Exact", limit, rv)
		wg.Go(func() {
			first, err := fetchBody(t.Context(), client, srv.URL()+path, accept)
			if err != nil {
				t.Error(err)
				return
			}
			for range 20 {
				got, err := fetchBody(t.Context(), client, srv.URL()+path, accept)
				if err != nil {
					t.Error(err)
					return
				}
				if diff := cmp.Diff(first, got); diff != "" {
					t.Errorf("%s %s: body changed between two reads (-first +later):\n%s", accept, path, diff)
					return
				}
			}
		})
	}
	wg.Wait()
}

// fetchBody GETs url accepting accept and returns the body of a 200; it
// may run on any goroutine.
func fetchBody(ctx context.Context, client *http.Client, url, accept string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: read body: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s = %d: %.200s", url, resp.StatusCode, body)
	}
	return body, nil
}
