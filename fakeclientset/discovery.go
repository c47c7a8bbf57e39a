package fakeclientset

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/restmapper"
	clienttesting "k8s.io/client-go/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// apiResources is what the server's discovery says, read once per server:
// the resource lists of every served group-version and a REST mapper over
// them (seeding maps kinds to resources and scopes with it).
type apiResources struct {
	lists  []*metav1.APIResourceList
	mapper meta.RESTMapper
}

// defaultResources memoises the discovery of a server built from the zero
// Config, which is the same for every such server (the default
// group-versions of client-go's scheme, no CRD yet): reading it costs a
// few milliseconds, most of a clientset's set-up. It is written once and
// only read after, so servers still share nothing they can change.
var defaultResources struct {
	once sync.Once
	res  *apiResources
	err  error
}

// resources reads the server's discovery on first use (two requests:
// aggregated discovery of /api and /apis) and keeps it; a server of the
// zero Config uses the process's memo. CRDs created later are not in it;
// the mapper falls back for them (seed.go).
func (s *Server) resources() (*apiResources, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.defaultConfig {
		defaultResources.once.Do(func() { defaultResources.res, defaultResources.err = s.readResources() })
		return defaultResources.res, defaultResources.err
	}
	if s.discovered == nil {
		res, err := s.readResources()
		if err != nil {
			return nil, err
		}
		s.discovered = res
	}
	return s.discovered, nil
}

// rereadResources reads the server's discovery again and keeps it, for a
// kind the kept one does not know: a CRD created since it was read (seeding
// the objects of a CRD the test just created maps them with it). From then
// on the server no longer uses the process's memo.
func (s *Server) rereadResources() (*apiResources, error) {
	res, err := s.readResources()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defaultConfig = false
	s.discovered = res
	return res, nil
}

// readResources asks the server's discovery.
func (s *Server) readResources() (*apiResources, error) {
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(s.RESTConfig(), s.hc)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	groups, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	grs := make([]*restmapper.APIGroupResources, 0, len(groups))
	for _, g := range groups {
		gr := &restmapper.APIGroupResources{Group: *g, VersionedResources: map[string][]metav1.APIResource{}}
		for _, l := range lists {
			if gv, err := schema.ParseGroupVersion(l.GroupVersion); err == nil && gv.Group == g.Name {
				gr.VersionedResources[gv.Version] = l.APIResources
			}
		}
		grs = append(grs, gr)
	}
	return &apiResources{lists: lists, mapper: restmapper.NewDiscoveryRESTMapper(grs)}, nil
}

// fillDiscovery makes fake's discovery (a *fakediscovery.FakeDiscovery, as
// client-go's fake has) answer with the server's resources and version.
// Tests may still overwrite Resources, as with client-go's fake.
func (s *Server) fillDiscovery(fake *clienttesting.Fake, d any) error {
	res, err := s.resources()
	if err != nil {
		return err
	}
	fake.Resources = make([]*metav1.APIResourceList, len(res.lists))
	for i, l := range res.lists {
		fake.Resources[i] = l.DeepCopy()
	}
	if fd, ok := d.(*fakediscovery.FakeDiscovery); ok {
		v := fakeapiserver.Version()
		fd.FakedServerVersion = &v
	}
	return nil
}
