package fakeapiserver

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericadmissioninit "k8s.io/apiserver/pkg/admission/initializer"
)

// ValidatingAdmissionPolicy and MutatingAdmissionPolicy are
// k8s.io/apiserver's plugins of those names (admission/plugin/policy/
// validating and .../mutating), each over its policy source: informers of
// the policies and bindings, which the source compiles into hooks (CEL
// type checking included) in a goroutine of its own, a second after an
// informer event at the latest (generic/policy_source.go). kube-apiserver
// therefore enforces a new policy or binding some time after its create,
// which clients wait for by retrying.
//
// The fake enforces them from the very next request, as it does webhook
// configurations (admission_sources.go): policyPlugin, the plugin
// registered in the chain, looks at the stored policies and bindings
// before each admission and, when they changed, builds the library plugin
// again over informers holding exactly them (policySnapshot), waits until
// its source has compiled them, and stops the previous one. The source's
// first compilation happens before it registers its informer event
// handlers (policySource.Run), so that registration is the signal that the
// hooks are ready. Everything else (matching, params, CEL evaluation, the
// errors and warnings) is the library's.

// Plugin names and resources of the policy plugins.
const (
	validatingPolicyPluginName = "ValidatingAdmissionPolicy"
	mutatingPolicyPluginName   = "MutatingAdmissionPolicy"
)

// policyResources names the two resources of a policy plugin.
type policyResources struct {
	policies, bindings schema.GroupVersionResource
}

func admissionregistrationV1(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: resource}
}

var (
	validatingPolicyResources = policyResources{
		policies: admissionregistrationV1("validatingadmissionpolicies"),
		bindings: admissionregistrationV1("validatingadmissionpolicybindings"),
	}
	mutatingPolicyResources = policyResources{
		policies: admissionregistrationV1("mutatingadmissionpolicies"),
		bindings: admissionregistrationV1("mutatingadmissionpolicybindings"),
	}
)

// policyPlugin is a policy plugin of the chain: it delegates to the
// library plugin built over the stored policies and bindings (current),
// rebuilt when they change, and admits nothing while no binding exists.
type policyPlugin struct {
	*admission.Handler
	s         *Server
	resources policyResources
	init      admissionInitializer
	// newPlugin returns the library plugin, not yet initialised.
	newPlugin func() (admission.Interface, error)

	// mu guards the fields below and serialises rebuilds.
	mu sync.Mutex
	// builtRV is the store's RV when the policies and bindings the
	// current plugin was built over were read (0: none built): a write to
	// either resource after it means a rebuild.
	builtRV int64
	// plugin is the current library plugin (nil: no binding), stop its
	// drained notification, which stops its goroutines.
	plugin admission.Interface
	stop   chan struct{}
	closed bool
}

// newPolicyPlugin returns the chain's plugin for resources, handling ops,
// over the library plugin newPlugin makes.
func newPolicyPlugin(s *Server, resources policyResources, init admissionInitializer,
	newPlugin func() (admission.Interface, error), ops ...admission.Operation) *policyPlugin {
	return &policyPlugin{
		Handler:   admission.NewHandler(ops...),
		s:         s,
		resources: resources,
		init:      init,
		newPlugin: newPlugin,
	}
}

// Validate implements admission.ValidationInterface with the current
// library plugin.
func (p *policyPlugin) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	plugin, err := p.current(ctx)
	if err != nil || plugin == nil {
		return err
	}
	v, ok := plugin.(admission.ValidationInterface)
	if !ok {
		return nil
	}
	return v.Validate(ctx, a, o)
}

// Admit implements admission.MutationInterface with the current library
// plugin.
func (p *policyPlugin) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	plugin, err := p.current(ctx)
	if err != nil || plugin == nil {
		return err
	}
	m, ok := plugin.(admission.MutationInterface)
	if !ok {
		return nil
	}
	return m.Admit(ctx, a, o)
}

// active reports whether any binding of the plugin's kind is stored: a
// write with no binding and no webhook configuration skips admission.
func (p *policyPlugin) active() bool {
	return len(p.s.storedAdmissionConfigs(p.resources.bindings)) > 0
}

// current returns the library plugin over the stored policies and
// bindings, building it when they changed since the last build; nil when
// no binding is stored.
func (p *policyPlugin) current(ctx context.Context) (admission.Interface, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil
	}
	// The store says whether either resource was written since the
	// build, so a write that changes no policy reads and compares none
	// (this runs for every admitted request while a binding exists).
	if p.builtRV != 0 && !p.writtenSince(p.builtRV) {
		return p.plugin, nil
	}
	rv := p.s.store.CurrentRV() // before the reads: a write after it shows next time
	policies := p.s.storedAdmissionConfigs(p.resources.policies)
	bindings := p.s.storedAdmissionConfigs(p.resources.bindings)
	p.stopLocked()
	p.builtRV = rv
	if len(bindings) == 0 {
		return nil, nil
	}
	plugin, stop, err := p.build(ctx, policies, bindings)
	if err != nil {
		p.builtRV = 0
		return nil, err
	}
	p.plugin, p.stop = plugin, stop
	return plugin, nil
}

// writtenSince reports whether the store holds a write to the policies or
// the bindings after rv (or compacted one away).
func (p *policyPlugin) writtenSince(rv int64) bool {
	for _, gvr := range []schema.GroupVersionResource{p.resources.policies, p.resources.bindings} {
		res, ok := p.s.resources.lookup(gvr)
		if !ok {
			continue
		}
		if evs, _, err := p.s.store.Changes(res.storageKey, rv); err != nil || len(evs) > 0 {
			return true
		}
	}
	return false
}

// build makes the library plugin over policies and bindings, as
// kube-apiserver's admission options initialise it, and waits until its
// source compiled them.
func (p *policyPlugin) build(ctx context.Context, policies, bindings []runtime.Object) (admission.Interface, chan struct{}, error) {
	plugin, err := p.newPlugin()
	if err != nil {
		return nil, nil, fmt.Errorf("fakeapiserver: %s: %w", p.resources.policies.Resource, err)
	}
	snapshot := newPolicySnapshot(p.s.admission.informers, p.resources, policies, bindings)
	stop := make(chan struct{})
	init := p.init
	init.informers = snapshot
	init.Initialize(plugin)
	if w, ok := plugin.(genericadmissioninit.WantsDrainedNotification); ok {
		w.SetDrainedNotification(stop)
	}
	if v, ok := plugin.(admission.InitializationValidator); ok {
		if err := v.ValidateInitialization(); err != nil {
			close(stop)
			return nil, nil, fmt.Errorf("fakeapiserver: %s: %w", p.resources.policies.Resource, err)
		}
	}
	if !snapshot.enabled() {
		return plugin, stop, nil
	}
	select {
	case <-snapshot.bindings.registered:
		return plugin, stop, nil
	case <-ctx.Done():
		close(stop)
		return nil, nil, fmt.Errorf("fakeapiserver: %s: %w", p.resources.policies.Resource, ctx.Err())
	}
}

// stopLocked stops the current plugin's goroutines.
func (p *policyPlugin) stopLocked() {
	if p.stop != nil {
		close(p.stop)
	}
	p.plugin, p.stop = nil, nil
}

// close stops the current plugin for good (Server.Close).
func (p *policyPlugin) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
	p.closed = true
}

// storedAdmissionConfigs lists the stored objects of an
// admissionregistration resource (none if it is not served).
func (s *Server) storedAdmissionConfigs(gvr schema.GroupVersionResource) []runtime.Object {
	res, ok := s.resources.lookup(gvr)
	if !ok {
		return nil
	}
	objs, err := s.latest(res, "")
	if err != nil {
		return nil
	}
	return objs
}

var (
	_ admission.ValidationInterface = (*policyPlugin)(nil)
	_ admission.MutationInterface   = (*policyPlugin)(nil)
)
