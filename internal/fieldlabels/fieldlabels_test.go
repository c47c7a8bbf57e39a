package fieldlabels

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// resource is what the functions under test see of a served resource.
type resource struct {
	kind       schema.GroupVersionKind
	labels     *Labels
	namespaced bool
}

// clusterScoped are the kinds of these tests without a namespace.
var clusterScoped = map[schema.GroupKind]bool{
	{Kind: "Node"}: true, {Kind: "Namespace"}: true, {Kind: "PersistentVolume"}: true,
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: true,
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:        true,
}

// fieldResource is a built-in kind with its field labels and scope.
func fieldResource(gv schema.GroupVersion, kind string) resource {
	gvk := gv.WithKind(kind)
	return resource{kind: gvk, labels: Builtin(gvk.GroupKind()), namespaced: !clusterScoped[gvk.GroupKind()]}
}

// convert and set call Convert and Set for r.
func (r resource) convert(sel fields.Selector) (fields.Selector, error) {
	return Convert(r.kind.GroupKind(), r.labels, sel)
}

func (r resource) set(obj runtime.Object) fields.Set { return Set(r.labels, r.namespaced, obj) }

var (
	coreGV   = corev1.SchemeGroupVersion
	appsGV   = appsv1.SchemeGroupVersion
	eventsGV = eventsv1.SchemeGroupVersion
)

// TestConvert pins the rewritten selector or the error text
// byte for byte against kube-apiserver v1.37 (Scheme.ConvertFieldLabel with
// kubernetes' conversion funcs; every text was also checked against it).
func TestConvert(t *testing.T) {
	tests := []struct {
		name     string
		res      resource
		selector string
		want     string
		wantErr  string
		reason   string
	}{
		{name: "pod node", res: fieldResource(coreGV, "Pod"), selector: "spec.nodeName=node-1", want: "spec.nodeName=node-1"},
		{name: "pod spec.host alias", res: fieldResource(coreGV, "Pod"), selector: "spec.host=node-1", want: "spec.nodeName=node-1"},
		{name: "pod alias with !=", res: fieldResource(coreGV, "Pod"), selector: "spec.host!=node-1", want: "spec.nodeName!=node-1"},
		{name: "pod several terms", res: fieldResource(coreGV, "Pod"),
			selector: "status.phase!=Succeeded,status.phase!=Failed,metadata.namespace=default",
			want:     "metadata.namespace=default,status.phase!=Failed,status.phase!=Succeeded"},
		{name: "pod status.podIPs is accepted", res: fieldResource(coreGV, "Pod"), selector: "status.podIPs=10.0.0.1", want: "status.podIPs=10.0.0.1"},
		{name: "pod unknown key", res: fieldResource(coreGV, "Pod"), selector: "spec.priority=1",
			wantErr: "field label not supported: spec.priority"},
		{name: "first unknown key in sorted order", res: fieldResource(coreGV, "Pod"), selector: "zz=1,metadata.name=a,aa=2",
			wantErr: "field label not supported: aa", reason: "fields.ParseSelector sorts the terms before Transform"},
		{name: "node rejects metadata.namespace", res: fieldResource(coreGV, "Node"), selector: "metadata.namespace=default",
			wantErr: "field label not supported: metadata.namespace"},
		{name: "node unschedulable", res: fieldResource(coreGV, "Node"), selector: "spec.unschedulable=true", want: "spec.unschedulable=true"},
		{name: "namespace phase", res: fieldResource(coreGV, "Namespace"), selector: "status.phase=Active", want: "status.phase=Active"},
		{name: "namespace legacy name field is unreachable", res: fieldResource(coreGV, "Namespace"), selector: "name=default",
			wantErr: "field label not supported: name"},
		{name: "event involved object", res: fieldResource(coreGV, "Event"), selector: "involvedObject.kind=Pod,involvedObject.name=p",
			want: "involvedObject.kind=Pod,involvedObject.name=p"},
		{name: "core event rejects the events.k8s.io name", res: fieldResource(coreGV, "Event"), selector: "regarding.name=p",
			wantErr: "field label not supported: regarding.name"},
		{name: "secret type", res: fieldResource(coreGV, "Secret"), selector: "type=kubernetes.io/tls", want: "type=kubernetes.io/tls"},
		{name: "service", res: fieldResource(coreGV, "Service"), selector: "spec.type=NodePort,spec.clusterIP=None", want: "spec.clusterIP=None,spec.type=NodePort"},
		{name: "replicationcontroller", res: fieldResource(coreGV, "ReplicationController"), selector: "status.replicas=0", want: "status.replicas=0"},
		{name: "configmap: default conversion", res: fieldResource(coreGV, "ConfigMap"), selector: "metadata.name=a,metadata.namespace=b",
			want: "metadata.name=a,metadata.namespace=b"},
		{name: "configmap unknown key", res: fieldResource(coreGV, "ConfigMap"), selector: "data.key=x",
			wantErr: `"data.key" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{name: "deployment: apps registers no conversion", res: fieldResource(appsGV, "Deployment"), selector: "status.replicas=1",
			wantErr: `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{name: "lease", res: fieldResource(coordinationv1.SchemeGroupVersion, "Lease"), selector: "spec.holderIdentity=x",
			wantErr: `"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{name: "cluster-scoped default kind accepts metadata.namespace", res: fieldResource(coreGV, "PersistentVolume"),
			selector: "metadata.namespace=x", want: "metadata.namespace=x"},
		{name: "events.k8s.io aliases", res: fieldResource(eventsGV, "Event"), selector: "regarding.name=p,reportingController=kubelet",
			want: "involvedObject.name=p,reportingComponent=kubelet"},
		{name: "events.k8s.io rejects the core name", res: fieldResource(eventsGV, "Event"), selector: "involvedObject.name=p",
			wantErr: "field label not supported: involvedObject.name"},
		{name: "job", res: fieldResource(batchv1.SchemeGroupVersion, "Job"), selector: "status.successful=1", want: "status.successful=1"},
		{name: "job has its own message", res: fieldResource(batchv1.SchemeGroupVersion, "Job"), selector: "status.failed=1",
			wantErr: `field label "status.failed" not supported for Job`},
		{name: "csr", res: fieldResource(certificatesv1.SchemeGroupVersion, "CertificateSigningRequest"), selector: "spec.signerName=a/b",
			want: "spec.signerName=a/b"},
		{name: "pod certificate request", res: fieldResource(certificatesv1.SchemeGroupVersion, "PodCertificateRequest"),
			selector: "spec.podName=p", want: "spec.podName=p"},
		{name: "user override without keys", res: resource{kind: coreGV.WithKind("Pod"), labels: &Labels{}, namespaced: true},
			selector: "metadata.name=a", wantErr: "field label not supported: metadata.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := fields.ParseSelector(tt.selector)
			if err != nil {
				t.Fatalf("ParseSelector(%q): %v", tt.selector, err)
			}
			got, err := tt.res.convert(sel)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Convert(%v, %q) error = %v, want %q", tt.res.kind.Kind, tt.selector, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Convert(%v, %q): %v", tt.res.kind.Kind, tt.selector, err)
			}
			if got.String() != tt.want {
				t.Errorf("Convert(%v, %q) = %q, want %q", tt.res.kind.Kind, tt.selector, got.String(), tt.want)
			}
		})
	}
}

func TestConvertNil(t *testing.T) {
	got, err := fieldResource(coreGV, "Pod").convert(nil)
	if got != nil || err != nil {
		t.Errorf("Convert(pods, nil) = %v, %v, want nil, nil", got, err)
	}
}

// TestBuiltinFieldLabelsConsistent checks that every accepted key maps to a
// field the kind's objects expose, except the one upstream gap.
func TestBuiltinFieldLabelsConsistent(t *testing.T) {
	samples := map[schema.GroupKind]runtime.Object{
		{Kind: "Pod"}: &corev1.Pod{}, {Kind: "Node"}: &corev1.Node{}, {Kind: "ReplicationController"}: &corev1.ReplicationController{},
		{Kind: "Event"}: &corev1.Event{}, {Kind: "Namespace"}: &corev1.Namespace{}, {Kind: "Secret"}: &corev1.Secret{},
		{Kind: "Service"}: &corev1.Service{}, {Group: "events.k8s.io", Kind: "Event"}: &eventsv1.Event{},
		{Group: "batch", Kind: "Job"}:                                     &batchv1.Job{},
		{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: &certificatesv1.CertificateSigningRequest{},
		{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:        &certificatesv1.ClusterTrustBundle{},
		{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}:     &certificatesv1.PodCertificateRequest{},
		{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                 &resourcev1.ResourceSlice{},
	}
	// status.podIPs passes conversion but pod/strategy.go never sets it
	// ("TODO: add podIPs as a downward API value(s) with proper format").
	gaps := map[string]bool{"status.podIPs": true}
	if len(samples) != len(builtin) {
		t.Fatalf("%d samples for %d builtin: add the new kind here", len(samples), len(builtin))
	}
	for gk, fl := range builtin {
		obj, ok := samples[gk]
		if !ok {
			t.Errorf("no sample object for %v", gk)
			continue
		}
		set := Set(fl, !clusterScoped[gk], obj)
		targets := append([]string{}, fl.Keys...)
		for _, to := range fl.Aliases {
			targets = append(targets, to)
		}
		for _, k := range targets {
			if _, ok := set[k]; !ok && !gaps[k] && !(k == "metadata.namespace" && clusterScoped[gk]) {
				t.Errorf("%v accepts %q but Set has no such field: %v", gk, k, set)
			}
		}
	}
}

func TestSet(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "n", Namespace: "ns"}
	tests := []struct {
		name string
		res  resource
		obj  runtime.Object
		want fields.Set
	}{{
		name: "pod",
		res:  fieldResource(coreGV, "Pod"),
		obj: &corev1.Pod{ObjectMeta: meta,
			Spec: corev1.PodSpec{NodeName: "node-1", RestartPolicy: corev1.RestartPolicyAlways, SchedulerName: "default-scheduler",
				ServiceAccountName: "default", HostNetwork: true},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.7"}, {IP: "fd00::7"}}, NominatedNodeName: "node-2"}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "spec.nodeName": "node-1", "spec.restartPolicy": "Always",
			"spec.schedulerName": "default-scheduler", "spec.serviceAccountName": "default", "spec.hostNetwork": "true",
			"status.phase": "Running", "status.podIP": "10.0.0.7", "status.nominatedNodeName": "node-2"},
	}, {
		name: "pod: podIP is authoritative over podIPs",
		res:  fieldResource(coreGV, "Pod"),
		obj:  &corev1.Pod{ObjectMeta: meta, Status: corev1.PodStatus{PodIP: "10.0.0.8", PodIPs: []corev1.PodIP{{IP: "10.0.0.7"}}}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "spec.nodeName": "", "spec.restartPolicy": "",
			"spec.schedulerName": "", "spec.serviceAccountName": "", "spec.hostNetwork": "false",
			"status.phase": "", "status.podIP": "10.0.0.8", "status.nominatedNodeName": ""},
	}, {
		name: "node has no namespace field",
		res:  fieldResource(coreGV, "Node"),
		obj:  &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Spec: corev1.NodeSpec{Unschedulable: true}},
		want: fields.Set{"metadata.name": "node-1", "spec.unschedulable": "true"},
	}, {
		name: "namespace keeps the legacy name field",
		res:  fieldResource(coreGV, "Namespace"),
		obj:  &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
		want: fields.Set{"metadata.name": "kube-system", "name": "kube-system", "status.phase": "Terminating"},
	}, {
		name: "core event: source falls back to reportingController",
		res:  fieldResource(coreGV, "Event"),
		obj: &corev1.Event{ObjectMeta: meta, Reason: "Killing", Type: "Normal", ReportingController: "kubelet",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u1", APIVersion: "v1", ResourceVersion: "5", FieldPath: "spec.containers{a}"}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "involvedObject.kind": "Pod", "involvedObject.namespace": "ns",
			"involvedObject.name": "p", "involvedObject.uid": "u1", "involvedObject.apiVersion": "v1", "involvedObject.resourceVersion": "5",
			"involvedObject.fieldPath": "spec.containers{a}", "reason": "Killing", "reportingComponent": "kubelet", "source": "kubelet", "type": "Normal"},
	}, {
		name: "events.k8s.io event reads through the core names",
		res:  fieldResource(eventsGV, "Event"),
		obj: &eventsv1.Event{ObjectMeta: meta, Reason: "Scheduled", Type: "Normal", ReportingController: "default-scheduler",
			DeprecatedSource: corev1.EventSource{Component: "scheduler"}, Regarding: corev1.ObjectReference{Kind: "Pod", Name: "p"}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "involvedObject.kind": "Pod", "involvedObject.namespace": "",
			"involvedObject.name": "p", "involvedObject.uid": "", "involvedObject.apiVersion": "", "involvedObject.resourceVersion": "",
			"involvedObject.fieldPath": "", "reason": "Scheduled", "reportingComponent": "default-scheduler", "source": "scheduler", "type": "Normal"},
	}, {
		name: "secret",
		res:  fieldResource(coreGV, "Secret"),
		obj:  &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeDockerConfigJson},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "type": "kubernetes.io/dockerconfigjson"},
	}, {
		name: "service",
		res:  fieldResource(coreGV, "Service"),
		obj:  &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", Type: corev1.ServiceTypeClusterIP}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "spec.clusterIP": "10.96.0.1", "spec.type": "ClusterIP"},
	}, {
		name: "replicationcontroller",
		res:  fieldResource(coreGV, "ReplicationController"),
		obj:  &corev1.ReplicationController{ObjectMeta: meta, Status: corev1.ReplicationControllerStatus{Replicas: 3}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "status.replicas": "3"},
	}, {
		name: "job",
		res:  fieldResource(batchv1.SchemeGroupVersion, "Job"),
		obj:  &batchv1.Job{ObjectMeta: meta, Status: batchv1.JobStatus{Succeeded: 2}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns", "status.successful": "2"},
	}, {
		name: "csr is cluster-scoped",
		res:  fieldResource(certificatesv1.SchemeGroupVersion, "CertificateSigningRequest"),
		obj:  &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "a/b"}},
		want: fields.Set{"metadata.name": "c", "spec.signerName": "a/b"},
	}, {
		name: "configmap: metadata only",
		res:  fieldResource(coreGV, "ConfigMap"),
		obj:  &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns"},
	}, {
		name: "deployment: metadata only",
		res:  fieldResource(appsGV, "Deployment"),
		obj:  &appsv1.Deployment{ObjectMeta: meta},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns"},
	}, {
		name: "persistentvolume: cluster-scoped, name only",
		res:  fieldResource(coreGV, "PersistentVolume"),
		obj:  &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}},
		want: fields.Set{"metadata.name": "pv"},
	}, {
		name: "object of an unexpected type gets the metadata fields",
		res:  fieldResource(coreGV, "Pod"),
		obj:  &corev1.ConfigMap{ObjectMeta: meta},
		want: fields.Set{"metadata.name": "n", "metadata.namespace": "ns"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.res.set(tt.obj)); diff != "" {
				t.Errorf("Set(%v) mismatch (-want +got):\n%s", tt.res.kind.Kind, diff)
			}
		})
	}
}

// TestFieldSelectorMatching runs the two steps together, as the list and
// watch handlers do: convert the selector, then match Set.
func TestFieldSelectorMatching(t *testing.T) {
	pods := fieldResource(coreGV, "Pod")
	onNode1 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"}}
	unscheduled := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	tests := []struct {
		selector string
		want     []string
		reason   string
	}{
		{selector: "spec.host=node-1", want: []string{"a"}},
		{selector: "spec.nodeName=", want: []string{"b"}, reason: "the scheduler's unassigned-pod selector"},
		{selector: "status.phase!=Succeeded,status.phase!=Failed", want: []string{"a", "b"}},
		{selector: "status.podIPs=10.0.0.1", want: nil, reason: "accepted but never set by the strategy"},
		{selector: "status.podIPs!=10.0.0.1", want: []string{"a", "b"}},
		{selector: "metadata.name=b,metadata.namespace=ns", want: []string{"b"}},
	}
	for _, tt := range tests {
		sel, err := fields.ParseSelector(tt.selector)
		if err != nil {
			t.Fatalf("ParseSelector(%q): %v", tt.selector, err)
		}
		conv, err := pods.convert(sel)
		if err != nil {
			t.Fatalf("Convert(pods, %q): %v", tt.selector, err)
		}
		var got []string
		for _, p := range []*corev1.Pod{onNode1, unscheduled} {
			if conv.Matches(pods.set(p)) {
				got = append(got, p.Name)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("pods matching %q mismatch (-want +got):\n%s", tt.selector, diff)
		}
	}
}

// TestForCustomResource checks a CRD version's keys: the metadata ones by
// scope, then the selectable fields without their leading dot.
func TestForCustomResource(t *testing.T) {
	selectable := []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}, {JSONPath: ".status.phase"}}
	tests := []struct {
		namespaced bool
		want       []string
	}{
		{namespaced: true, want: []string{"metadata.name", "metadata.namespace", "spec.color", "status.phase"}},
		{namespaced: false, want: []string{"metadata.name", "spec.color", "status.phase"}},
	}
	for _, tt := range tests {
		got := ForCustomResource(tt.namespaced, selectable, nil)
		if diff := cmp.Diff(tt.want, got.Keys); diff != "" {
			t.Errorf("ForCustomResource(namespaced=%v) keys mismatch (-want +got):\n%s", tt.namespaced, diff)
		}
	}
	sel, err := fields.ParseSelector("spec.size=1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Convert(schema.GroupKind{Group: "example.com", Kind: "Widget"}, ForCustomResource(true, selectable, nil), sel); err == nil || err.Error() != "field label not supported: spec.size" {
		t.Errorf("Convert(spec.size) error = %v, want field label not supported: spec.size", err)
	}
}
