package suggest

import "testing"

// TestDidYouMean: typos within a third of the name get a suggestion, a
// different case is a typo of no letters, and far names get none.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	known := []string{"EndWatch", "CutWatch", "Compact", "timeline", "rv"}
	for _, tc := range []struct{ got, want string }{
		{"EndWatc", `; did you mean "EndWatch"?`},
		{"endwatch", `; did you mean "EndWatch"?`},
		{"compcat", `; did you mean "Compact"?`},
		{"timelines", `; did you mean "timeline"?`},
		{"rv", `; did you mean "rv"?`},
		{"lag", ""},
		{"Restart", ""},
		{"", ""},
	} {
		if got := DidYouMean(tc.got, known); got != tc.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tc.got, got, tc.want)
		}
	}
	if got := DidYouMean("x", nil); got != "" {
		t.Errorf("DidYouMean with nothing known = %q, want none", got)
	}
}
