package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// TestBenchPrintsTable runs "lw-sim bench" small against the fake alone
// and checks the table it prints.
func TestBenchPrintsTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "--pods", "30", "--page-size", "7", "--watchers", "3", "--writes", "4", "--rounds", "1", "--workers", "2"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%q) = %v; stderr:\n%s", args, err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"workload", "fake", "create pod (creates/s)", "paged LIST raw protobuf (MB/s)", "watch fan-out 3×4 (events/s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ratio") {
		t.Errorf("a one-target table has a ratio column:\n%s", out)
	}
}

// TestBenchAgainstBadKubeconfig fails cleanly, fake closed, for a missing
// kubeconfig.
func TestBenchAgainstBadKubeconfig(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"bench", "--against", t.TempDir() + "/missing"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "kubeconfig") {
		t.Fatalf("err = %v, want a kubeconfig error", err)
	}
}

// TestBenchOutputJSON prints the measurements as data with -o json.
func TestBenchOutputJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "--pods", "12", "--page-size", "5", "--watchers", "2", "--writes", "2", "--rounds", "1", "--workers", "2", "-o", "json"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%q) = %v; stderr:\n%s", args, err, stderr.String())
	}
	var got struct {
		Targets []string `json:"targets"`
		Rows    []struct {
			Workload string    `json:"workload"`
			Values   []float64 `json:"values"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("-o json output does not parse: %v\n%s", err, stdout.String())
	}
	if len(got.Targets) != 1 || got.Targets[0] != "fake" || len(got.Rows) == 0 || got.Rows[0].Workload != "create pod (creates/s)" {
		t.Errorf("-o json = %+v, want the fake's rows, creates first", got)
	}
}

// TestBenchFakeKubeconfig measures the fake a --fake kubeconfig reaches
// (a server of the test's own here) instead of starting one: its pods, and
// the configmaps of each fan-out round, appear on that server.
func TestBenchFakeKubeconfig(t *testing.T) {
	srv := fakeapiserver.Start(t)
	path := t.TempDir() + "/fake.kubeconfig"
	if err := srv.WriteKubeconfig(path); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "--fake", path, "--pods", "6", "--page-size", "5", "--watchers", "2", "--writes", "3", "--rounds", "2", "--workers", "2"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%q) = %v; stderr:\n%s", args, err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "create pod (creates/s)") {
		t.Errorf("table lacks the create row:\n%s", stdout.String())
	}
	pods, err := srv.Clientset().CoreV1().Pods("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 6 {
		t.Errorf("the --fake server holds %d pods after the bench, want its 6", len(pods.Items))
	}
	cms, err := srv.Clientset().CoreV1().ConfigMaps(pods.Items[0].Namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cms.Items) != 2*3 {
		t.Errorf("the bench namespace holds %d configmaps, want 3 writes in each of 2 fan-out rounds", len(cms.Items))
	}
}

// TestBenchScalePrintsTable runs "lw-sim bench --scale" small against the
// fake alone (over HTTPS, so HTTP/2) and checks the rows it prints.
func TestBenchScalePrintsTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "--scale", "--scale-objects", "40,25", "--scale-watchers", "2,3", "--scale-writes", "3",
		"--scale-custom-objects", "30", "--scale-crd-properties", "50", "--scale-crd-depth", "20",
		"--page-size", "2", "--rounds", "1", "--workers", "2"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%q) = %v; stderr:\n%s", args, err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"25 objects: first page (ms)", "40 objects: 10th page (ms)", "40 objects: selector page, 1 in 50 (ms)",
		"40 objects: full list (ms)", "2 watchers: fan-out of 3 creates (events/s)", "3 watchers: fan-out of 3 creates (events/s)",
		"CRD of 50 schema properties: create to Established (ms)", "CRD of schema depth 20: create to Established (ms)",
		"CRD of 50 schema properties: create (ms)", "CRD of schema depth 20: create (ms)", "30 custom objects: first page, JSON (ms)",
		"30 custom objects: first page, first read after the creates, JSON (ms)",
		"30 custom objects: selector page, 1 in 50, JSON (ms)", "30 custom objects: full list, JSON (ms)",
		"2 watchers of custom objects: fan-out of 3 creates (events/s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
