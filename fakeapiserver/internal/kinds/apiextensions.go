package kinds

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// apiextensionsKinds: apiextensions-apiserver pkg/registry/
// customresourcedefinition/strategy.go. Defaults: apiextensions v1's
// generated defaulters (internal/defaults defaults.go); printer:
// internal/tables printers_misc.go. Its validation, preparation and
// controllers are the server's adapter over apiextensions-apiserver's
// strategy (crd.go, customresource_hooks.go), which needs the served
// resources.
var apiextensionsKinds = []kind{
	{gk("apiextensions.k8s.io", "CustomResourceDefinition"), Strategy{
		Default:       typed(apiextensionsv1.SetObjectDefaults_CustomResourceDefinition),
		ClusterScoped: true, ShortNames: []string{"crd", "crds"}, TracksGeneration: true,
	}},
}
