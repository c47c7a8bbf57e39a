package jsonpatch

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// doublings is a patch adding a 1 KiB value, then n copies of it into
// itself, each doubling it.
func doublings(n int) Patch {
	ops := []string{`{"op":"add","path":"/x","value":{"p":"` + strings.Repeat("A", 1024) + `"}}`}
	for i := range n {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/x","path":"/x/y%d"}`, i))
	}
	p, err := DecodePatch([]byte("[" + strings.Join(ops, ",") + "]"))
	if err != nil {
		panic(err)
	}
	return p
}

// TestApplyWithLimit: the limit is per call; Apply has none.
func TestApplyWithLimit(t *testing.T) {
	t.Parallel()
	var tooLarge *AccumulatedCopySizeError
	if _, err := doublings(12).ApplyWithLimit([]byte(`{}`), 3<<20); !errors.As(err, &tooLarge) {
		t.Errorf("ApplyWithLimit(12 doublings, 3 MiB) = %v, want an AccumulatedCopySizeError", err)
	}
	if _, err := doublings(8).ApplyWithLimit([]byte(`{}`), 3<<20); err != nil {
		t.Errorf("ApplyWithLimit(8 doublings, 3 MiB) = %v, want it applied (255 KiB copied)", err)
	}
	if _, err := doublings(12).Apply([]byte(`{}`)); err != nil {
		t.Errorf("Apply(12 doublings) = %v, want no limit", err)
	}
}
