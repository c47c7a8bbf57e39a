package fakeapiserver

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// childProcess is this test binary run again as a helper: a server the
// tests measure from outside (TestLoad, TestWatchMemoryProcess). It reads
// commands on its stdin, answers on its stdout, and stops when its stdin
// closes.
type childProcess struct {
	in  io.Writer
	out *bufio.Scanner
}

// startChild runs this test binary's test (a -test.run pattern) with env
// added, as the child that test's server mode is, and returns once the
// child has printed a line starting with ready, with the rest of that
// line. The child stops at the test's end: its stdin closes, it closes its
// server and exits; a child that would outlast the test binary is killed
// (testdeadline). name says which child, in failures.
func startChild(t *testing.T, name, test string, env []string, ready string) (*childProcess, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+test, "-test.timeout=0")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		hung, stop := testdeadline.Derive(context.Background(), t)
		defer stop()
		kill := context.AfterFunc(hung, func() { _ = cmd.Process.Kill() })
		defer kill()
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	})
	c := &childProcess{in: in, out: bufio.NewScanner(outPipe)}
	for c.out.Scan() {
		if rest, ok := strings.CutPrefix(c.out.Text(), ready); ok {
			return c, rest
		}
	}
	t.Fatalf("%s did not start: %v", name, c.out.Err())
	return nil, ""
}
