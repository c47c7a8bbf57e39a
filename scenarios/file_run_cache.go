package scenarios

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/watch"
)

// naiveCache is what a naive client believes (a scenario file's naive
// cache, scenariofile.CacheCheck): the names it has, from the list it
// read and the events it applied.
type naiveCache map[string]bool

// apply applies a watch event the way a client that trusts every event
// does.
func (c naiveCache) apply(ev WatchEvent) {
	name := strings.TrimPrefix(ev.Key, Namespace+"/")
	switch ev.Type {
	case watch.Added, watch.Modified:
		c[name] = true
	case watch.Deleted:
		delete(c, name)
	}
}

func (c naiveCache) String() string {
	return "[" + strings.Join(slices.Sorted(maps.Keys(c)), " ") + "]"
}

// naiveCacheOf is a cache holding names.
func naiveCacheOf(names []string) naiveCache {
	c := naiveCache{}
	for _, n := range names {
		c[n] = true
	}
	return c
}
