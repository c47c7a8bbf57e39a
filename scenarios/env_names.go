package scenarios

import "strconv"

// cmPath is the ConfigMap collection of [Namespace].
const cmPath = "/api/v1/namespaces/" + Namespace + "/configmaps"

// rvNum is the number a resourceVersion holds (0 if none).
func rvNum(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

// key is the cache key of the ConfigMap name in [Namespace].
func key(name string) string { return Namespace + "/" + name }
