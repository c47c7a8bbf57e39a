package fakeapiserver

// The checks of /healthz, /livez and /readyz, named and ordered as
// kube-apiserver v1.37.2 (tools/realapiserver, the reference) lists them
// with ?verbose (observed; the same list on every start). They are
// registered by apiserver pkg/server (ping, log, the post-start hooks'
// "poststarthook/<name>", readyz's informer-sync and shutdown), its etcd
// options (etcd, readyz's etcd-readiness), its secure serving
// (loopback-serving-certificate, healthz and livez only) and kubernetes
// pkg/controlplane/apiserver/aggregator.go (autoregister-completion).

// postStartHooks are kube-apiserver's post-start hooks in the order their
// checks are listed. Each has run once the server serves, so each passes.
var postStartHooks = []string{
	"start-apiserver-admission-initializer",
	"generic-apiserver-start-informers",
	"priority-and-fairness-config-consumer",
	"priority-and-fairness-filter",
	"storage-object-count-tracker-hook",
	"start-apiextensions-informers",
	"start-apiextensions-controllers",
	"crd-informer-synced",
	"start-system-namespaces-controller",
	"peer-endpoint-reconciler-controller",
	"mixed-version-proxy-handler",
	"local-discovery-cache-sync",
	"peer-discovery-workers",
	"start-cluster-authentication-info-controller",
	"start-kube-apiserver-identity-lease-controller",
	"start-kube-apiserver-identity-lease-garbage-collector",
	"storage-readiness",
	"start-legacy-token-tracking-controller",
	"start-service-ip-repair-controllers",
	"rbac/bootstrap-roles",
	"scheduling/bootstrap-system-priority-classes",
	"priority-and-fairness-config-producer",
	"bootstrap-controller",
	"start-kubernetes-service-cidr-controller",
	"aggregator-reload-proxy-client-cert",
	"start-kube-aggregator-informers",
	"apiservice-status-local-available-controller",
	"apiservice-status-remote-available-controller",
	"apiservice-registration-controller",
	"apiservice-discovery-controller",
	"kube-apiserver-autoregistration",
}

// lateChecks follow the post-start hooks: the aggregator's
// autoregister-completion (registered between kube-apiserver-autoregistration's
// hook and the OpenAPI controllers' hooks), then those hooks.
var lateChecks = []string{
	"autoregister-completion",
	"poststarthook/apiservice-openapi-controller",
	"poststarthook/apiservice-openapiv3-controller",
}

// healthCheckNames lists the checks of endpoint ("healthz", "livez" or
// "readyz") in kube-apiserver's order: healthz and livez share one list;
// readyz has no loopback-serving-certificate, adds etcd-readiness and
// informer-sync after etcd, and ends with shutdown.
func healthCheckNames(endpoint string) []string {
	names := []string{"ping", "log"}
	if endpoint == "readyz" {
		names = append(names, "etcd", "etcd-readiness", "informer-sync")
	} else {
		names = append(names, "loopback-serving-certificate", "etcd")
	}
	for _, h := range postStartHooks {
		names = append(names, "poststarthook/"+h)
	}
	names = append(names, lateChecks...)
	if endpoint == "readyz" {
		names = append(names, "shutdown")
	}
	return names
}
