//go:debug randseednop=0

package listwatch

import (
	mathrand "math/rand"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// The //go:debug line above is for seedGlobalRand. Since Go 1.24 the
// deprecated math/rand.Seed does nothing unless GODEBUG has
// randseednop=0; a //go:debug line in a _test.go file sets it for this
// package's test binary only (Go's doc/godebug.md, "When testing a
// package").

// seedGlobalRand seeds math/rand's global source, from which client-go
// draws what varies between runs: the Reflector's watch timeouts
// (minWatchTimeout times 1 + rand.Float64()) and apimachinery's
// wait.Jitter, behind every Reflector and informer backoff. The client
// machine seeds it from the check's drawn seed at the start of each check,
// inside the bubble and before any subject starts, so a rapid seed replays
// client-go's subjects' timeouts and backoffs too, not only this
// package's client's (whose draws come from Options.Rand). It is process
// state: the checks that seed it are not parallel, and no other test
// depends on its values.
func seedGlobalRand(seed uint64) {
	mathrand.Seed(int64(seed))
}

// TestGlobalRandSeeded: after seedGlobalRand, math/rand's global source,
// and apimachinery's jitter drawn from it, give the seed's sequence. It
// fails if rand.Seed is a no-op (the //go:debug line missing, or a Go
// that ignores randseednop).
func TestGlobalRandSeeded(t *testing.T) {
	defer seedGlobalRand(rand.Uint64()) // leave no test's seed behind
	draw := func() []int64 {
		out := []int64{mathrand.Int63(), mathrand.Int63()}
		for range 3 {
			out = append(out, int64(wait.Jitter(time.Second, 1)))
		}
		return out
	}
	seedGlobalRand(42)
	first := draw()
	seedGlobalRand(42)
	second := draw()
	src := mathrand.New(mathrand.NewSource(42))
	if want := []int64{src.Int63(), src.Int63()}; !slices.Equal(first[:2], want) || !slices.Equal(first, second) {
		t.Fatalf("math/rand's global source is not seeded: after Seed(42) twice it drew %v, then %v; want both to start %v", first, second, want)
	}
}
