package conformance

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/internal/malformed"
)

// malformedCases are the cases of this file, in the order [Cases] runs them.
func malformedCases() []Case {
	return []Case{
		// Every kind of path (collections, items, /watch/ and /proxy/
		// paths, every subresource, reviews) with every method.
		malformedCase("MalformedVerbs", "verbs"),
		// Paths with "..", ".", empty and encoded segments, in every
		// position of five kinds of path, as GET, DELETE and create.
		malformedCase("MalformedSegments", "segment"),
		// Bad values of every list and watch option.
		malformedCase("MalformedQueries", "query"),
		// resourceVersions at and past the int64 and uint64 limits on
		// LIST, WATCH and GET.
		malformedCase("MalformedResourceVersions", "rv"),
		// Bad values of every write option on every write verb.
		malformedCase("MalformedWriteOptions", "write"),
		// Bad bodies and content types of creates, updates and deletes,
		// in JSON, YAML and protobuf.
		malformedCase("MalformedBodies", "body"),
		// Bad patches of every patch type.
		malformedCase("MalformedPatches", "patch"),
		// Accept headers no route produces.
		malformedCase("MalformedAccept", "accept"),
		// Bodies at and over the size limits, YAML aliases expanding to
		// megabytes, long selectors and names.
		malformedCase("MalformedSizes", "size"),
	}
}

// Issue 21's malformed-request corpus (internal/malformed): every request
// is sent to the target and its answer compared with the answer
// kube-apiserver v1.37.2 gave, recorded in testdata/malformed/<category>.json.
// The recording is the expected answer; `make conformance-real` checks the
// real server still gives it and the fake agrees, and plain `go test`
// checks the fake. To record again (after the corpus changed), run the
// real server's side with LWSIM_MALFORMED_RECORD=1:
//
//	LWSIM_MALFORMED_RECORD=1 CONFORMANCE_TESTFLAGS="-run 'TestConformance/real/.*/Malformed'" make conformance-real
//
// Requests where the fake answers otherwise on purpose are excluded by name
// (malformedDivergences), each with its reason in DIVERGENCES.md.

// malformedRecordEnv names the environment variable that makes the real
// target's run write the recording instead of comparing with it.
const malformedRecordEnv = "LWSIM_MALFORMED_RECORD"

// malformedDumpEnv names a directory each target's answers are also written
// to (<target>-<category>.json), to study disagreements side by side.
const malformedDumpEnv = "LWSIM_MALFORMED_DUMP"

// malformedRecordings are the real server's answers, per category.
//
//go:embed testdata/malformed/*.json
var malformedRecordings embed.FS

// malformedCase is the case name: the corpus's requests of one category,
// sent to the target in a fresh fixture, answer as the recording says.
// Each runs exclusive (one at a time, after the shared cases), as the nine
// were registered when the corpus came (dcd14b7).
func malformedCase(name, category string) Case {
	return Case{Name: name, Exclusive: true, Run: func(ctx context.Context, t *testing.T, target Target) {
		runMalformed(ctx, t, target, category)
	}}
}

// runMalformed sends the corpus's requests of one category to target in a
// fresh fixture and compares the answers with the recording.
func runMalformed(ctx context.Context, t *testing.T, target Target, category string) {
	e := setup(ctx, t, target)
	fx := malformed.NewFixture(e.ns)
	e.c.restoreFixture(ctx, t, fx)
	got := map[string]malformedAnswer{}
	var names []string
	for _, r := range malformed.Corpus(fx) {
		if r.Category() != category {
			continue
		}
		a := e.c.sendMalformed(ctx, r, e.ns)
		got[r.Name] = a
		names = append(names, r.Name)
		if r.Mutates() && (a.Code < 300 || a.Error != "") {
			e.c.restoreFixture(ctx, t, fx)
		}
	}
	if dir := os.Getenv(malformedDumpEnv); dir != "" {
		writeMalformedAnswers(t, filepath.Join(dir, target.Name()+"-"+category+".json"), got)
	}
	if os.Getenv(malformedRecordEnv) != "" && target.Name() == "real" {
		writeMalformedAnswers(t, filepath.Join("testdata", "malformed", category+".json"), got)
		return
	}
	compareMalformed(t, category, names, got, target.Name() == "fake")
}

// compareMalformed fails the test for each answer that differs from the
// recording, excluded requests aside. On the fake, an excluded request
// that agrees fails too: its exclusion is stale.
func compareMalformed(t *testing.T, category string, names []string, got map[string]malformedAnswer, fake bool) {
	want := readMalformedRecording(t, category)
	var diffs []string
	skipped := 0
	for _, name := range names {
		w, recorded := want[name]
		reason, excluded := malformedExcluded(name)
		switch {
		case !recorded:
			diffs = append(diffs, fmt.Sprintf("%s: no recorded answer (record with %s=1, see malformed_cases.go)", name, malformedRecordEnv))
		case excluded && fake && cmp.Equal(w, got[name]):
			diffs = append(diffs, fmt.Sprintf("%s: excluded (%s) but agrees: remove the exclusion", name, reason))
		case excluded:
			skipped++
		default:
			if diff := cmp.Diff(w, got[name]); diff != "" {
				diffs = append(diffs, fmt.Sprintf("%s (-real +got):\n%s", name, diff))
			}
		}
	}
	t.Logf("%s: %d requests, %d compared, %d excluded (DIVERGENCES.md), %d differ", category, len(names), len(names)-skipped, skipped, len(diffs))
	for i, d := range diffs {
		if i == 60 {
			t.Errorf("... and %d more", len(diffs)-i)
			break
		}
		t.Error(d)
	}
}

// readMalformedRecording reads a category's recorded answers.
func readMalformedRecording(t *testing.T, category string) map[string]malformedAnswer {
	t.Helper()
	data, err := malformedRecordings.ReadFile(path.Join("testdata/malformed", category+".json"))
	if err != nil {
		t.Fatalf("no recording of %s: %v", category, err)
	}
	var m map[string]malformedAnswer
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("recording of %s: %v", category, err)
	}
	return m
}

// writeMalformedAnswers writes answers to file, one request a line in name
// order (the recordings in testdata, and the dumps of malformedDumpEnv).
func writeMalformedAnswers(t *testing.T, file string, got map[string]malformedAnswer) {
	t.Helper()
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, n := range names {
		k, _ := json.Marshal(n)
		v, err := json.Marshal(got[n])
		if err != nil {
			t.Fatal(err)
		}
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s: %s%s\n", k, v, sep)
	}
	b.WriteString("}\n")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d answers in %s", len(names), file)
}
