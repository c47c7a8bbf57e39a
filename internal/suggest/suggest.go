// Package suggest finds the name a typo meant, for the "did you mean"
// of error messages about names a user wrote (scenario file fields, fault
// kinds, client and watch ids).
package suggest

import (
	"fmt"
	"strings"
)

// DidYouMean is `; did you mean "x"?` for the name in known nearest to got
// (by edit distance, ignoring case; ties go to the name listed first), or
// "" when none is near enough to be a typo: at most a third of its
// letters, and at most 3, wrong.
func DidYouMean(got string, known []string) string {
	best, bestDist := "", 0
	for _, k := range known {
		d := distance(strings.ToLower(got), strings.ToLower(k))
		if best == "" || d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" || bestDist > min(3, max(1, len(best)/3)) {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// distance is the Levenshtein distance between a and b, in bytes (the
// names are ASCII).
func distance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
