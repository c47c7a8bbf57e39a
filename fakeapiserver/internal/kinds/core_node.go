package kinds

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// nodeKinds: kubernetes pkg/registry/core/node/strategy.go. Defaults:
// internal/defaults node.go; validation: internal/validation node.go,
// node_status.go; printer: internal/tables printers_core.go; field labels:
// internal/fieldlabels (Node).
var nodeKinds = []kind{
	{gk("", "Node"), Strategy{
		Default:        typed(defaults.Node),
		Validate:       validation.TypedCreate(validation.Node),
		ValidateStatus: validation.TypedStatus(validation.NodeStatus),
		ClusterScoped:  true,
		ShortNames:     []string{"no"},
		// "Nodes allow *all* fields, including status, to be set on
		// create" (nodeStrategy.PrepareForCreate).
		KeepsStatusOnCreate:    true,
		PrepareForCreate:       typedTimed(func(n *corev1.Node, _ metav1.Time) { defaults.NodeForCreate(n) }),
		PrepareForStatusUpdate: typedStatus(prepareNodeStatusUpdate),
	}},
}

// prepareNodeStatusUpdate is nodeStatusStrategy.PrepareForUpdate:
// status.config (the removed dynamic kubelet config) is kept only if
// already stored.
func prepareNodeStatusUpdate(n, old *corev1.Node, _ metav1.Time) {
	if old.Status.Config == nil {
		n.Status.Config = nil
	}
}
