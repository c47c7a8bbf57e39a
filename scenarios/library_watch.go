package scenarios

import (
	"fmt"
	"strconv"
)

// cmPath is the ConfigMap collection of [Namespace].
const cmPath = "/api/v1/namespaces/" + Namespace + "/configmaps"

// greek are object names; scenarios create them in a seeded order.
var greek = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}

// createShuffled creates ConfigMaps named names in an order drawn from the
// run's seed and returns each name's RV.
func createShuffled(e *Env, names []string) (map[string]string, error) {
	rvs := make(map[string]string, len(names))
	for _, i := range e.Rand().Perm(len(names)) {
		rv, err := e.Create(Namespace, names[i], fmt.Sprintf("v%d", e.Rand().IntN(100)))
		if err != nil {
			return nil, err
		}
		rvs[names[i]] = rv
	}
	return rvs, nil
}

func rvNum(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

func key(name string) string { return Namespace + "/" + name }
