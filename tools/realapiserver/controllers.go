package realapiserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
	namespacecontroller "k8s.io/kubernetes/pkg/controller/namespace"
	serviceaccountcontroller "k8s.io/kubernetes/pkg/controller/serviceaccount"
	"k8s.io/kubernetes/pkg/controller/validatingadmissionpolicystatus"
	"k8s.io/kubernetes/pkg/generated/openapi"
)

// Controller names, as kube-controller-manager's --controllers takes them
// (cmd/kube-controller-manager/names).
const (
	garbageCollectorController = "garbage-collector-controller"
	serviceAccountController   = "serviceaccount-controller"
	namespaceController        = "namespace-controller"
	policyStatusController     = "validatingadmissionpolicy-status-controller"
)

// controllerUserAgent is kube-controller-manager's User-Agent for the
// client named client: its prefix names the field manager of what the
// controller writes ("kube-controller-manager").
func controllerUserAgent(client string) string {
	return "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/realapiserver/" + client
}

// controllers runs kube-controller-manager's controllers against the
// kube-apiserver, started and stopped one at a time through the control
// endpoint (POST /controllers/start?name=, /controllers/stop?name=), so a
// conformance case compares lw-sim's controllers with the real ones while
// every other case sees a kube-apiserver alone, as envtest runs it.
type controllers struct {
	mu      sync.Mutex
	running map[string]*runningController
}

// runningController is one started controller: cancel stops it, done is
// closed when its goroutines have returned.
type runningController struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// start starts the controller name against the server cfg reaches; a
// running one is left alone.
func (c *controllers) start(name string, cfg *rest.Config) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running[name] != nil {
		return nil
	}
	var run func(ctx context.Context) error
	switch name {
	case garbageCollectorController:
		run = func(ctx context.Context) error { return runGarbageCollector(ctx, cfg) }
	case namespaceController:
		run = func(ctx context.Context) error { return runNamespaceController(ctx, cfg) }
	case serviceAccountController:
		run = func(ctx context.Context) error { return runServiceAccountController(ctx, cfg) }
	case policyStatusController:
		run = func(ctx context.Context) error { return runPolicyStatusController(ctx, cfg) }
	default:
		return fmt.Errorf("unknown controller %q", name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rc := &runningController{cancel: cancel, done: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		defer close(rc.done)
		errc <- run(ctx)
	}()
	// A constructor error comes back at once; a running controller blocks.
	select {
	case err := <-errc:
		cancel()
		return err
	case <-time.After(time.Second):
	}
	if c.running == nil {
		c.running = map[string]*runningController{}
	}
	c.running[name] = rc
	return nil
}

// stop stops the controller name and waits for it.
func (c *controllers) stop(name string) {
	c.mu.Lock()
	rc := c.running[name]
	delete(c.running, name)
	c.mu.Unlock()
	if rc != nil {
		rc.cancel()
		<-rc.done
	}
}

// stopAll stops every running controller.
func (c *controllers) stopAll() {
	c.mu.Lock()
	var names []string
	for n := range c.running {
		names = append(names, n)
	}
	c.mu.Unlock()
	for _, n := range names {
		c.stop(n)
	}
}

// controllerClients are the typed and metadata clients of the controller
// client name, as kube-controller-manager's client builder makes them
// (its User-Agent; a QPS high enough that the client never throttles a
// case).
func controllerClients(cfg *rest.Config, client string) (*kubernetes.Clientset, metadata.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = controllerUserAgent(client)
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return cs, md, nil
}

// runGarbageCollector runs the garbage collector as kube-controller-manager
// does (cmd/kube-controller-manager/app/core.go
// newGarbageCollectorController and its Run): metadata informers over every
// deletable resource, the default ignored resources, 20 workers, and a
// discovery resync every 30 s. It returns when ctx ends.
func runGarbageCollector(ctx context.Context, cfg *rest.Config) error {
	cs, md, err := controllerClients(cfg, "generic-garbage-collector")
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	shared := informers.NewSharedInformerFactory(cs, 0)
	meta := metadatainformer.NewSharedInformerFactory(md, 0)
	started := make(chan struct{})
	gc, err := garbagecollector.NewGarbageCollector(ctx, cs, md, mapper, garbagecollector.DefaultIgnoredResources(),
		informerfactory.NewInformerFactory(shared, meta), started)
	if err != nil {
		return fmt.Errorf("garbage collector: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { gc.Run(ctx, 20, 30*time.Second) })
	wg.Go(func() { gc.Sync(ctx, cs.Discovery(), 30*time.Second) })
	shared.Start(ctx.Done())
	meta.Start(ctx.Done())
	close(started)
	<-ctx.Done()
	wg.Wait()
	shared.Shutdown()
	meta.Shutdown()
	return nil
}

// runServiceAccountController runs the service account controller as
// kube-controller-manager does (cmd/kube-controller-manager/app/core.go
// newServiceAccountController: the default options, one "default" account
// per namespace, 1 worker here). It returns when ctx ends.
func runServiceAccountController(ctx context.Context, cfg *rest.Config) error {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = controllerUserAgent("service-account-controller")
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	shared := informers.NewSharedInformerFactory(cs, 0)
	c, err := serviceaccountcontroller.NewServiceAccountsController(klog.FromContext(ctx), shared.Core().V1().ServiceAccounts(),
		shared.Core().V1().Namespaces(), cs, serviceaccountcontroller.DefaultServiceAccountsControllerOptions())
	if err != nil {
		return fmt.Errorf("service account controller: %w", err)
	}
	shared.Start(ctx.Done())
	c.Run(ctx, 1)
	shared.Shutdown()
	return nil
}

// runNamespaceController runs the namespace controller as
// kube-controller-manager does (cmd/kube-controller-manager/app/core.go
// startModifiedNamespaceController: the preferred namespaced resources of
// discovery, the "kubernetes" finalizer, a 5 minute resync, 10 workers).
// It returns when ctx ends.
func runNamespaceController(ctx context.Context, cfg *rest.Config) error {
	cs, md, err := controllerClients(cfg, "namespace-controller")
	if err != nil {
		return err
	}
	shared := informers.NewSharedInformerFactory(cs, 0)
	c := namespacecontroller.NewNamespaceController(ctx, cs, md, cs.Discovery().ServerPreferredNamespacedResources,
		shared.Core().V1().Namespaces(), 5*time.Minute, corev1.FinalizerKubernetes)
	shared.Start(ctx.Done())
	c.Run(ctx, 10)
	shared.Shutdown()
	return nil
}

// runPolicyStatusController runs the ValidatingAdmissionPolicy status
// controller as kube-controller-manager does
// (cmd/kube-controller-manager/app/validatingadmissionpolicystatus.go):
// built-in schemas from the generated OpenAPI definitions, the others from
// discovery, 5 workers (ConcurrentPolicySyncs' default). It returns when
// ctx ends.
func runPolicyStatusController(ctx context.Context, cfg *rest.Config) error {
	cs, _, err := controllerClients(cfg, "validatingadmissionpolicy-status-controller")
	if err != nil {
		return err
	}
	schemaResolver := resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme).
		Combine(&resolver.ClientDiscoveryResolver{Discovery: cs.Discovery()})
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	typeChecker := &validatingpolicy.TypeChecker{SchemaResolver: schemaResolver, RestMapper: mapper}
	shared := informers.NewSharedInformerFactory(cs, 0)
	c, err := validatingadmissionpolicystatus.NewController(shared.Admissionregistration().V1().ValidatingAdmissionPolicies(),
		cs.AdmissionregistrationV1().ValidatingAdmissionPolicies(), typeChecker)
	if err != nil {
		return fmt.Errorf("policy status controller: %w", err)
	}
	shared.Start(ctx.Done())
	c.Run(ctx, 5)
	shared.Shutdown()
	return nil
}
