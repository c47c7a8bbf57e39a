package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// TestServeAPIServers: --apiservers 2 --balancing sticky-client runs two
// instances; one client (one X-Lw-Sim-Client) stays on one, another goes
// to the other, and each response names its instance.
func TestServeAPIServers(t *testing.T) {
	t.Parallel()
	sr := startServe(t, "--insecure-http", "--apiservers", "2", "--balancing", "sticky-client")
	hc := sr.httpClient(t)
	url := sr.restConfig(t).Host + "/api/v1/namespaces"
	var got []string
	for _, client := range []string{"a", "a", "b", "a", "b"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(fakeapiserver.ClientHeader, client)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.Header.Get(fakeapiserver.APIServerHeader))
	}
	want := []string{"apiserver-0", "apiserver-0", "apiserver-1", "apiserver-0", "apiserver-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instances of clients a a b a b (-want +got):\n%s", diff)
	}
	if err := sr.stop(); err != nil {
		t.Fatalf("run(serve) after cancel = %v, want nil", err)
	}
}

// TestServeAPIServersBadFlags: a count below one or an unknown balancing
// is a usage error.
func TestServeAPIServersBadFlags(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{{"--apiservers", "0"}, {"--balancing", "random"}} {
		err := run(t.Context(), append([]string{"serve", "--insecure-http", "--listen", "127.0.0.1:0"}, flags...), io.Discard, io.Discard)
		if err == nil {
			t.Errorf("serve %v = nil, want a usage error", flags)
		}
	}
}
