package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

var (
	// listLine and eventLine parse the demo's narration.
	listLine  = regexp.MustCompile(`(?m)^2\. LIST pods: (\d+) items at resourceVersion (\d+)$`)
	eventLine = regexp.MustCompile(`(?m)^\s+(ADDED|MODIFIED|DELETED)\s+(\S+)\s+resourceVersion (\d+)\b`)
)

func TestDemo(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"demo"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(demo) = %v, want nil; stdout:\n%s", err, stdout.String())
	}
	out := stdout.String()

	m := listLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo output lacks the LIST line:\n%s", out)
	}
	if m[1] != "3" {
		t.Errorf("demo LIST items = %s, want 3", m[1])
	}
	lastRV := mustAtoi(t, m[2])

	type event struct{ Type, Name string }
	var got []event
	for _, ev := range eventLine.FindAllStringSubmatch(out, -1) {
		got = append(got, event{Type: ev[1], Name: ev[2]})
		// Every event is after the LIST, and RVs only go up.
		if rv := mustAtoi(t, ev[3]); rv <= lastRV {
			t.Errorf("demo event %s %s at resourceVersion %d, want above %d", ev[1], ev[2], rv, lastRV)
		} else {
			lastRV = rv
		}
	}
	// Deleting a pod is a MODIFIED (deletionTimestamp) then a DELETED, as
	// kube-apiserver does for a pod no node runs.
	want := []event{{"MODIFIED", "web-1"}, {"MODIFIED", "web-2"}, {"DELETED", "web-2"}, {"ADDED", "web-4"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("demo watch events mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
	}
	if stderr.Len() != 0 {
		t.Errorf("demo stderr = %q, want empty", stderr.String())
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("Atoi(%q) = %v", s, err)
	}
	return n
}

// TestDemoNamespace: -n puts the demo's pods in another namespace the
// server starts with.
func TestDemoNamespace(t *testing.T) {
	t.Parallel()
	out, _ := runOK(t, "demo", "-n", "kube-public")
	if want := `1. create pods web-1, web-2, web-3 in namespace "kube-public"`; !strings.Contains(out, want) {
		t.Errorf("demo -n kube-public output lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "ADDED     web-4") {
		t.Errorf("demo -n kube-public: the watcher did not see web-4:\n%s", out)
	}
}
