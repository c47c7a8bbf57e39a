package fakeapiserver

import (
	"net/url"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fcboot "k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
)

// The API Priority and Fairness configuration kube-apiserver writes
// itself: the mandatory FlowSchemas and priority levels (exempt,
// catch-all) and the suggested ones (system-nodes, probes,
// system-leader-election, workload-high, ...), as its
// priority-and-fairness-config-producer post-start hook creates them
// (kubernetes pkg/registry/flowcontrol/rest/storage_flowcontrol.go
// ensure, with apiserver pkg/apis/flowcontrol/bootstrap's objects) and
// recreates a missing one every minute. It also revises the spec of those
// annotated apf.kubernetes.io/autoupdate-spec=true back to the bootstrap
// one; lw-sim does not (conformance/DIVERGENCES.md). lw-sim does not
// schedule requests by them either: they are objects to list and watch.

const (
	// apfProducerManager is the field manager the producer creates them
	// with (ensurer/strategy.go fieldManager).
	apfProducerManager = "api-priority-and-fairness-config-producer-v1"
	// apfConfigInterval is the producer's period (PollImmediateUntil
	// time.Minute).
	apfConfigInterval = time.Minute
)

// The flowcontrol.apiserver.k8s.io/v1 resources.
var (
	flowSchemasGVR    = schema.GroupVersionResource{Group: flowcontrolv1.GroupName, Version: "v1", Resource: "flowschemas"}
	priorityLevelsGVR = schema.GroupVersionResource{Group: flowcontrolv1.GroupName, Version: "v1", Resource: "prioritylevelconfigurations"}
)

// apfConfigObjects are the bootstrap configuration in the producer's
// order: suggested priority levels, suggested FlowSchemas, then the
// mandatory ones. The bootstrap package's objects are shared: each is
// copied.
func (s *Server) apfConfigObjects() []bootstrapObject {
	query := url.Values{"fieldManager": {apfProducerManager}}
	var out []bootstrapObject
	addPLs := func(pls []*flowcontrolv1.PriorityLevelConfiguration) {
		for _, pl := range pls {
			o := pl.DeepCopy()
			o.TypeMeta = metav1.TypeMeta{APIVersion: flowcontrolv1.SchemeGroupVersion.String(), Kind: "PriorityLevelConfiguration"}
			out = append(out, bootstrapObject{gvr: priorityLevelsGVR, name: o.Name, body: o, query: query})
		}
	}
	addFSs := func(fss []*flowcontrolv1.FlowSchema) {
		for _, fs := range fss {
			o := fs.DeepCopy()
			o.TypeMeta = metav1.TypeMeta{APIVersion: flowcontrolv1.SchemeGroupVersion.String(), Kind: "FlowSchema"}
			out = append(out, bootstrapObject{gvr: flowSchemasGVR, name: o.Name, body: o, query: query})
		}
	}
	addPLs(fcboot.SuggestedPriorityLevelConfigurations)
	addFSs(fcboot.SuggestedFlowSchemas)
	addPLs(fcboot.MandatoryPriorityLevelConfigurations)
	addFSs(fcboot.MandatoryFlowSchemas)
	return out
}
