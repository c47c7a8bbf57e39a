package discovery

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/captured"
)

// BuiltinGroupVersion is kube-apiserver's discovery of one group-version
// it serves by default: its top-level resources and the subresources of
// each.
type BuiltinGroupVersion struct {
	// Resources are the top-level resources, in kube-apiserver's order.
	Resources []metav1.APIResource
	// Subresources are by parent plural, e.g. "pods" → pods/status,
	// pods/log, ...
	Subresources map[string][]metav1.APIResource
}

// Builtin returns kube-apiserver's discovery of every group-version it
// serves by default (internal/captured), decoded once per process: it is
// immutable data from the binary. Callers only read it.
func Builtin() (map[schema.GroupVersion]*BuiltinGroupVersion, error) { return builtinOnce() }

var builtinOnce = sync.OnceValues(loadBuiltin)

// loadBuiltin decodes the captured discovery, a JSON array of
// APIResourceList.
func loadBuiltin() (map[schema.GroupVersion]*BuiltinGroupVersion, error) {
	raw, err := captured.Discovery()
	if err != nil {
		return nil, err
	}
	var lists []metav1.APIResourceList
	if err := json.Unmarshal(raw, &lists); err != nil {
		return nil, fmt.Errorf("discovery: captured discovery: %w", err)
	}
	out := make(map[schema.GroupVersion]*BuiltinGroupVersion, len(lists))
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("discovery: captured discovery: %w", err)
		}
		b := &BuiltinGroupVersion{Subresources: map[string][]metav1.APIResource{}}
		for _, r := range l.APIResources {
			if parent, _, ok := strings.Cut(r.Name, "/"); ok {
				b.Subresources[parent] = append(b.Subresources[parent], r)
				continue
			}
			b.Resources = append(b.Resources, r)
		}
		out[gv] = b
	}
	return out, nil
}
