package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChaosFilesReplay replays every past chaos failure kept in
// testdata/chaos: each must pass against today's client.
func TestChaosFilesReplay(t *testing.T) {
	files, err := filepath.Glob("testdata/chaos/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("Glob = %v, %v; want the kept chaos files", files, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cf, err := ReadChaosFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), cf.Scenario(), RunOptions{})
			if err != nil {
				t.Fatalf("replay failed: %v\n%s", err, res.Timeline)
			}
		})
	}
}

// TestChaosFileRoundTrip: a file written by Write reads back the same, and
// bad files are refused with a reason.
func TestChaosFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in, err := ReadChaosFile("testdata/chaos/relist-after-restart-deletes.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.json")
	if err := in.Write(path); err != nil {
		t.Fatal(err)
	}
	out, err := ReadChaosFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Ops) != len(in.Ops) || out.Name != in.Name || out.Ops[4].Fault.Code != 503 {
		t.Fatalf("round trip: got %+v, want %+v", out, in)
	}
	for name, body := range map[string]string{
		"version": `{"version": 2, "ops": []}`,
		"op":      `{"version": 1, "ops": [{"op": "explode"}]}`,
		"name":    `{"version": 1, "ops": [{"op": "write"}]}`,
		"fault":   `{"version": 1, "ops": [{"op": "fault"}]}`,
		"unknown": `{"version": 1, "ops": [], "extra": true}`,
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadChaosFile(p); err == nil || !strings.Contains(err.Error(), "chaos file") {
			t.Errorf("%s: ReadChaosFile = %v, want a chaos file error", name, err)
		}
	}
}
