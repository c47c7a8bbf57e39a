package hostcheck

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAllowed(t *testing.T) {
	t.Parallel()
	c := ForListen("devbox:6443", "Extra.Example.")
	for host, want := range map[string]bool{
		"127.0.0.1:6443":          true,
		"[::1]:6443":              true,
		"10.1.2.3":                true,
		"localhost:6443":          true,
		"LOCALHOST":               true,
		"app.localhost:6443":      true,
		"devbox:6443":             true,
		"extra.example":           true,
		"extra.example.:80":       true,
		"":                        true,
		"attacker.example:6443":   false,
		"localhost.attacker.com":  false,
		"127.0.0.1.attacker.com":  false,
		"devbox.attacker.example": false,
	} {
		if got := c.Allowed(host); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", host, got, want)
		}
	}
	if !New(AnyHost).Allowed("attacker.example") {
		t.Errorf("New(AnyHost) refused a host")
	}
}

// TestHandler sends a rebinding-style request (Host: attacker.example)
// through real HTTP and expects the 403 Status; a loopback Host passes.
func TestHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(ForListen("127.0.0.1:0").Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "served")
	})))
	defer srv.Close()
	do := func(host string) (int, []byte) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/api", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	if code, body := do("localhost:1234"); code != http.StatusOK || string(body) != "served" {
		t.Errorf("Host localhost = %d %q, want 200 served", code, body)
	}
	code, body := do("attacker.example:1234")
	if code != http.StatusForbidden {
		t.Errorf("Host attacker.example = %d, want 403", code)
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Message: `forbidden: host "attacker.example:1234" is not allowed: this local server answers only localhost names, IP addresses and the hosts given with --allow-host (a guard against DNS rebinding)`,
		Details: &metav1.StatusDetails{},
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
}
