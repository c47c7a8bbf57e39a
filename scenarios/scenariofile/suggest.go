package scenariofile

import (
	"slices"

	"github.com/lw-sim/lw-sim/internal/suggest"
)

// didYouMean is [suggest.DidYouMean].
func didYouMean(got string, known []string) string { return suggest.DidYouMean(got, known) }

// sortedKeys are m's keys in order, for suggestions and messages that
// list what is allowed.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
