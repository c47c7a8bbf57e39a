package jsonpatch

import (
	"errors"
	"testing"
)

// TestApplyWithLimitUpstreamPanics: the patches upstream's code panics on
// are ErrUpstreamPanic errors; the same ops with a value apply or fail as
// usual.
func TestApplyWithLimitUpstreamPanics(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"data":{"k":"v"},"list":["a"]}`)
	for _, tc := range []struct {
		patch     string
		wantPanic bool
	}{
		{`[{"op":"test","path":""}]`, true},
		{`[{"op":"replace","path":""}]`, true},
		{`[{"op":"test","path":"","value":[null]}]`, false},
		{`[{"op":"test","path":"/list","value":[null]}]`, true},
		{`[{"op":"test","path":"/data"}]`, false},
		{`[{"op":"test","path":"/data","value":{"k":"v"}}]`, false},
		{`[{"op":"replace","path":"/data","value":{}}]`, false},
	} {
		p, err := DecodePatch([]byte(tc.patch))
		if err != nil {
			t.Fatalf("DecodePatch(%s): %v", tc.patch, err)
		}
		_, err = p.ApplyWithLimit(doc, 0)
		if got := errors.Is(err, ErrUpstreamPanic); got != tc.wantPanic {
			t.Errorf("ApplyWithLimit(%s) = %v; ErrUpstreamPanic %v, want %v", tc.patch, err, got, tc.wantPanic)
		}
	}
}
