package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"explain", "expired-continue"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(explain expired-continue) = %v, want nil; stdout:\n%s", err, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"expired-continue\n================",
		"Q: Can a list request be paged? How does chunking work?",
		"list 请求可以分页吗？Chunk 实现机制是怎样的？",
		"In short: ",
		"Proved against the real kube-apiserver by the conformance cases ListContinueCompacted (", // its proves:
		"FullListIfExpired",           // the explanation
		"410 Gone Status 410 Expired", // the timeline
		"metadata.continue <token rv=-1 after=item-01>",
		"PASS: the fake behaved as described.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain expired-continue output lacks %q:\n%s", want, out)
		}
	}
}

func TestExplainHTML(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	out := filepath.Join(t.TempDir(), "page.html")
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"explain", "watch-breaks", "--html", out}, &stdout, &stderr); err != nil {
		t.Fatalf("run(explain watch-breaks --html) = %v, want nil; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Wrote "+out) {
		t.Errorf("explain --html output lacks %q:\n%s", "Wrote "+out, stdout.String())
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `data-lane="scenario"`, `data-lane="kube-apiserver"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("explain --html page lacks %q", want)
		}
	}
	// The RVs follow the objects the server creates at start.
	if tooOld := regexp.MustCompile(`too old resource version: \d+ \(\d+\)`); !tooOld.Match(page) {
		t.Errorf("explain --html page lacks %q", tooOld)
	}
}

// TestExplainFile: explain takes a scenario file as it takes a built-in's
// name, --html included.
func TestExplainFile(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	const file = "../../scenarios/testdata/files/relist-stays-in-sync.yaml"
	out := filepath.Join(t.TempDir(), "page.html")
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"explain", file, "--html", out}, &stdout, &stderr); err != nil {
		t.Fatalf("run(explain %s --html) = %v, want nil; stdout:\n%s", file, err, stdout.String())
	}
	for _, want := range []string{"relist-stays-in-sync\n====", "fault CutWatch {\"kind\":\"CutWatch\",\"streams\":\"open\"}", "ok: lw's store equals the server's state", "PASS: the fake behaved as described."} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("explain FILE output lacks %q:\n%s", want, stdout.String())
		}
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `data-lane="lw"`) {
		t.Error("explain FILE --html page lacks the lane of client lw")
	}
}
