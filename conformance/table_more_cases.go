package conformance

// More server-side Table cases (see table_cases.go): pod templates and
// controller revisions, events.k8s.io events, admission and flow-control
// configuration, IP addresses, certificates' trust bundles, dynamic
// resource allocation and storage version migrations. Cluster-scoped
// policies match only a group nobody serves, so they change nothing for
// the other cases sharing the real server.

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tableMoreCases are the cases of this file, in the order [Cases] runs them.
func tableMoreCases() []Case {
	return []Case{
		{Name: "TablePodTemplateAndRevision", Run: runTablePodTemplateAndRevision},
		{Name: "TableEventsV1", Run: runTableEventsV1},
		{Name: "TableAdmissionConfiguration", Run: runTableAdmissionConfiguration},
		{Name: "TableFlowControl", Run: runTableFlowControl},
		{Name: "TableIPAddressAndTrustBundle", Run: runTableIPAddressAndTrustBundle},
		{Name: "TableDynamicResources", Run: runTableDynamicResources},
	}
}

// runTablePodTemplateAndRevision: a PodTemplate (no Age column) and a
// ControllerRevision naming its controller as kind.group/name.
func runTablePodTemplateAndRevision(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	pt := object{"apiVersion": "v1", "kind": "PodTemplate", "metadata": object{"name": "pt"},
		"template": object{"metadata": object{"labels": object{"app": "web"}}, "spec": object{
			"containers": []any{object{"name": "c", "image": "busybox"}, object{"name": "d", "image": "nginx"}}}}}
	e.checkTable(ctx, "/api/v1/namespaces/"+e.ns+"/podtemplates", pt, []metav1.TableColumnDefinition{tcName,
		tcCol("Containers", "string", "Names of each container in the template."),
		tcCol("Images", "string", "Images referenced by each container in the template."),
		tcCol("Pod Labels", "string", "The labels for the pod template."),
	}, []any{"pt", "c,d", "busybox,nginx", "app=web"})

	crCols := []metav1.TableColumnDefinition{tcName,
		tcCol("Controller", "string", "Controller of the object"),
		tcCol("Revision", "string", appsv1.ControllerRevision{}.SwaggerDoc()["revision"]),
		tcAge,
	}
	crs := e.appsPath("controllerrevisions")
	e.checkTable(ctx, crs, object{"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": object{"name": "web-1",
		"ownerReferences": []any{object{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "0b3c8f9e-1111-4a4a-9a9a-000000000001", "controller": true}}},
		"revision": 3, "data": object{"spec": object{}}}, crCols, []any{"web-1", "statefulset.apps/web", float64(3), nil})
	e.checkTable(ctx, crs, object{"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": object{"name": "orphan"}, "revision": 1,
		"data": object{}},
		crCols, []any{"orphan", "<none>", float64(1), nil})
}

// eventColumnsWant are the core event printer's columns, which
// events.k8s.io/v1 shares.
func eventColumnsWant() []metav1.TableColumnDefinition {
	doc := corev1.Event{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		tcCol("Last Seen", "string", doc["lastTimestamp"]),
		tcCol("Type", "string", doc["type"]),
		tcCol("Reason", "string", doc["reason"]),
		tcCol("Object", "string", doc["involvedObject"]),
		tcWide("Subobject", "string", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]),
		tcWide("Source", "string", doc["source"]),
		tcCol("Message", "string", doc["message"]),
		tcWide("First Seen", "string", doc["firstTimestamp"]),
		tcWide("Count", "string", doc["count"]),
		{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: tcMetaDoc["name"]},
	}
}

// runTableEventsV1: an events.k8s.io/v1 Event is printed by the core
// event printer (the API shares its storage): regarding as the object,
// note as the message, reporting controller and instance as the source.
// The time cells (Last Seen, First Seen) are blanked.
func runTableEventsV1(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := "/apis/events.k8s.io/v1/namespaces/" + e.ns + "/events"
	e.createAt(ctx, path, object{"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": object{"name": "ev"},
		"eventTime": "2026-01-02T03:04:05.000000Z", "reportingController": "lwsim.example/ctl", "reportingInstance": "ctl-1",
		"action": "Sync", "reason": "Synced", "type": "Normal", "note": "  all good  ",
		"regarding": object{"kind": "Pod", "name": "p", "namespace": e.ns, "fieldPath": "spec.containers{c}"}}, "create event")
	cols, cells := tableRow(ctx, t, e.c, path, map[string]string{"fieldSelector": "metadata.name=ev"})
	if diff := cmp.Diff(eventColumnsWant(), cols); diff != "" {
		t.Errorf("events.k8s.io Table columns mismatch (-want +got):\n%s", diff)
	}
	if len(cells) == 10 {
		cells[0], cells[7] = nil, nil
	}
	if diff := cmp.Diff([]any{nil, "Normal", "Synced", "pod/p", "spec.containers{c}", "lwsim.example/ctl, ctl-1", "all good", nil, float64(1), "ev"}, cells); diff != "" {
		t.Errorf("events.k8s.io Table cells mismatch (-want +got):\n%s", diff)
	}
}

// runTableAdmissionConfiguration: webhook configurations count their
// webhooks; admission policies their rules and param kind; bindings show
// the policy and param reference.
func runTableAdmissionConfiguration(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	const admission = "/apis/admissionregistration.k8s.io/v1/"
	hookCols := []metav1.TableColumnDefinition{tcName, tcCol("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration"), tcAge}
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		name, path := e.ns+"-"+strings.ToLower(kind[:1]), admission+map[string]string{"MutatingWebhookConfiguration": "mutatingwebhookconfigurations", "ValidatingWebhookConfiguration": "validatingwebhookconfigurations"}[kind]
		e.checkTable(ctx, path, object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": object{"name": name}}, hookCols, []any{name, float64(0), nil})
		e.deleteAfter(ctx, target, path+"/"+name)
	}
	nothing := object{"resourceRules": []any{object{"apiGroups": []any{"nothing.lwsim.example"}, "apiVersions": []any{"v1"},
		"operations": []any{"CREATE"}, "resources": []any{"nothings"}}}}
	paramKind := object{"apiVersion": "v1", "kind": "ConfigMap"}
	policyCols := func(count, desc string) []metav1.TableColumnDefinition {
		return []metav1.TableColumnDefinition{tcName, tcCol(count, "integer", desc),
			tcCol("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy"), tcAge}
	}
	bindingCols := []metav1.TableColumnDefinition{tcName,
		tcCol("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to"),
		tcCol("ParamRef", "string", "ParamRef indicates the param resource which sets the configuration param"), tcAge}

	vap := e.ns + "-vap"
	e.checkTable(ctx, admission+"validatingadmissionpolicies", object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": object{"name": vap}, "spec": object{"paramKind": paramKind, "matchConstraints": nothing,
			"validations": []any{object{"expression": "true"}, object{"expression": "1 == 1"}}}},
		policyCols("Validations", "Validations indicates the number of validation rules defined in this configuration"), []any{vap, float64(2), "v1/ConfigMap", nil})
	e.deleteAfter(ctx, target, admission+"validatingadmissionpolicies/"+vap)
	vapb := e.ns + "-vapb"
	e.checkTable(ctx, admission+"validatingadmissionpolicybindings", object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": object{"name": vapb}, "spec": object{"policyName": vap, "validationActions": []any{"Deny"},
			"paramRef": object{"name": "params", "namespace": e.ns, "parameterNotFoundAction": "Allow"}}},
		bindingCols, []any{vapb, vap, e.ns + "/params", nil})
	e.deleteAfter(ctx, target, admission+"validatingadmissionpolicybindings/"+vapb)

	mp := e.ns + "-mp"
	e.checkTable(ctx, admission+"mutatingadmissionpolicies", object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
		"metadata": object{"name": mp}, "spec": object{"matchConstraints": nothing, "reinvocationPolicy": "Never",
			"mutations": []any{object{"patchType": "ApplyConfiguration", "applyConfiguration": object{"expression": "Object{}"}}}}},
		policyCols("Mutations", "Mutation indicates the number of mutations rules defined in this configuration"), []any{mp, float64(1), "<unset>", nil})
	e.deleteAfter(ctx, target, admission+"mutatingadmissionpolicies/"+mp)
	mpb := e.ns + "-mpb"
	e.checkTable(ctx, admission+"mutatingadmissionpolicybindings", object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
		"metadata": object{"name": mpb}, "spec": object{"policyName": mp}}, bindingCols, []any{mpb, mp, "<unset>", nil})
	e.deleteAfter(ctx, target, admission+"mutatingadmissionpolicybindings/"+mpb)
}

// runTableFlowControl: a FlowSchema (its MissingPL cell, set
// asynchronously by the real server's config controller, is blanked) and
// a PriorityLevelConfiguration with flowcontrol/v1's defaults.
func runTableFlowControl(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	const fc = "/apis/flowcontrol.apiserver.k8s.io/v1/"
	queuing := flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()
	plCols := []metav1.TableColumnDefinition{tcName,
		tcCol("Type", "string", flowcontrolv1.PriorityLevelConfigurationSpec{}.SwaggerDoc()["type"]),
		tcCol("NominalConcurrencyShares", "string", flowcontrolv1.LimitedPriorityLevelConfiguration{}.SwaggerDoc()["nominalConcurrencyShares"]),
		tcCol("Queues", "string", queuing["queues"]),
		tcCol("HandSize", "string", queuing["handSize"]),
		tcCol("QueueLengthLimit", "string", queuing["queueLengthLimit"]),
		tcAge,
	}
	pl := e.ns + "-pl"
	e.checkTable(ctx, fc+"prioritylevelconfigurations", object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
		"metadata": object{"name": pl}, "spec": object{"type": "Limited", "limited": object{"limitResponse": object{"type": "Queue", "queuing": object{}}}}},
		plCols, []any{pl, "Limited", float64(30), float64(64), float64(8), float64(50), nil})
	e.deleteAfter(ctx, target, fc+"prioritylevelconfigurations/"+pl)
	reject := e.ns + "-reject"
	e.checkTable(ctx, fc+"prioritylevelconfigurations", object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
		"metadata": object{"name": reject}, "spec": object{"type": "Limited", "limited": object{"nominalConcurrencyShares": 2, "limitResponse": object{"type": "Reject"}}}},
		plCols, []any{reject, "Limited", float64(2), "<none>", "<none>", "<none>", nil})
	e.deleteAfter(ctx, target, fc+"prioritylevelconfigurations/"+reject)

	fsSpec := flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()
	fsCols := []metav1.TableColumnDefinition{tcName,
		tcCol("PriorityLevel", "string", flowcontrolv1.PriorityLevelConfigurationReference{}.SwaggerDoc()["name"]),
		tcCol("MatchingPrecedence", "string", fsSpec["matchingPrecedence"]),
		tcCol("DistinguisherMethod", "string", fsSpec["distinguisherMethod"]),
		tcAge,
		tcCol("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"),
	}
	fs := e.ns + "-fs"
	fsPath := fc + "flowschemas"
	e.createAt(ctx, fsPath, object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": object{"name": fs},
		"spec": object{"priorityLevelConfiguration": object{"name": pl}, "distinguisherMethod": object{"type": "ByUser"},
			"rules": []any{object{"subjects": []any{object{"kind": "User", "user": object{"name": "nobody.lwsim.example"}}},
				"resourceRules": []any{object{"verbs": []any{"get"}, "apiGroups": []any{"nothing.lwsim.example"}, "resources": []any{"nothings"}, "namespaces": []any{"*"}}}}}}},
		"create flowschema")
	e.deleteAfter(ctx, target, fsPath+"/"+fs)
	cols, cells := tableRow(ctx, t, e.c, fsPath, map[string]string{"fieldSelector": "metadata.name=" + fs})
	if len(cells) == 6 {
		cells[5] = nil
	}
	if diff := cmp.Diff(fsCols, cols); diff != "" {
		t.Errorf("FlowSchema Table columns mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{fs, pl, float64(1000), "ByUser", nil, nil}, cells); diff != "" {
		t.Errorf("FlowSchema Table cells mismatch (-want +got):\n%s", diff)
	}
}

// runTableIPAddressAndTrustBundle: an IPAddress row has an age cell but
// no Age column (as kube-apiserver prints it), a ServiceCIDR joins its
// CIDRs, and a ClusterTrustBundle has no age at all.
func runTableIPAddressAndTrustBundle(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	ip := "10.255.254." + []string{"7", "8", "9"}[len(e.ns)%3]
	ipPath := "/apis/networking.k8s.io/v1/ipaddresses"
	e.createAt(ctx, ipPath, object{"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress", "metadata": object{"name": ip},
		"spec": object{"parentRef": object{"group": "", "resource": "services", "namespace": e.ns, "name": "svc"}}}, "create ipaddress")
	e.deleteAfter(ctx, target, ipPath+"/"+ip)
	cols, cells := tableRow(ctx, t, e.c, ipPath, map[string]string{"fieldSelector": "metadata.name=" + ip})
	if diff := cmp.Diff([]metav1.TableColumnDefinition{tcName, tcCol("ParentRef", "string", networkingv1.IPAddressSpec{}.SwaggerDoc()["parentRef"])}, cols); diff != "" {
		t.Errorf("IPAddress Table columns mismatch (-want +got):\n%s", diff)
	}
	if len(cells) != 3 {
		t.Fatalf("IPAddress Table cells = %v, want 3 (name, parent, age)", cells)
	}
	if diff := cmp.Diff([]any{ip, "services/" + e.ns + "/svc"}, cells[:2]); diff != "" {
		t.Errorf("IPAddress Table cells mismatch (-want +got):\n%s", diff)
	}

	cidr := e.ns + "-cidr"
	cidrPath := "/apis/networking.k8s.io/v1/servicecidrs"
	e.checkTable(ctx, cidrPath, object{"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR", "metadata": object{"name": cidr},
		"spec": object{"cidrs": []any{"10.255.253.0/24", "fd00:253::/112"}}},
		[]metav1.TableColumnDefinition{tcName, tcCol("CIDRs", "string", networkingv1.ServiceCIDRSpec{}.SwaggerDoc()["cidrs"]), tcAge},
		[]any{cidr, "10.255.253.0/24,fd00:253::/112", nil})
	e.deleteAfter(ctx, target, cidrPath+"/"+cidr)

	ctb := e.ns + "-ctb"
	ctbPath := "/apis/certificates.k8s.io/v1/clustertrustbundles"
	e.checkTable(ctx, ctbPath, object{"apiVersion": "certificates.k8s.io/v1", "kind": "ClusterTrustBundle", "metadata": object{"name": ctb},
		"spec": object{"trustBundle": string(caCert(t, "lw-sim"))}},
		[]metav1.TableColumnDefinition{tcName, tcCol("SignerName", "string", certificatesv1.ClusterTrustBundleSpec{}.SwaggerDoc()["signerName"])},
		[]any{ctb, "<none>"})
	e.deleteAfter(ctx, target, ctbPath+"/"+ctb)
}

// runTableDynamicResources: resource.k8s.io DeviceClass, ResourceClaim,
// ResourceClaimTemplate, ResourceSlice and DeviceTaintRule, and a
// StorageVersionMigration (no Age column, Name without the name format).
func runTableDynamicResources(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	const dra = "/apis/resource.k8s.io/v1/"
	nameAge := []metav1.TableColumnDefinition{tcName, tcAge}
	dc := e.ns + "-gpu"
	e.checkTable(ctx, dra+"deviceclasses", object{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": object{"name": dc}, "spec": object{}},
		nameAge, []any{dc, nil})
	e.deleteAfter(ctx, target, dra+"deviceclasses/"+dc)
	request := object{"devices": object{"requests": []any{object{"name": "r", "exactly": object{"deviceClassName": dc}}}}}
	e.checkTable(ctx, dra+"namespaces/"+e.ns+"/resourceclaims", object{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
		"metadata": object{"name": "claim"}, "spec": request},
		[]metav1.TableColumnDefinition{tcName, tcCol("State", "string", "A summary of the current state (allocated, pending, reserved, etc.)."), tcAge},
		[]any{"claim", "pending", nil})
	e.checkTable(ctx, dra+"namespaces/"+e.ns+"/resourceclaimtemplates", object{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
		"metadata": object{"name": "tmpl"}, "spec": object{"spec": request}}, nameAge, []any{"tmpl", nil})

	sliceSpec := resourcev1.ResourceSliceSpec{}.SwaggerDoc()
	slice := e.ns + "-slice"
	e.checkTable(ctx, dra+"resourceslices", object{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": object{"name": slice},
		"spec": object{"driver": "gpu.example.com", "nodeName": "n1", "pool": object{"name": "pool-a", "generation": 1, "resourceSliceCount": 1}}},
		[]metav1.TableColumnDefinition{tcName, tcCol("Node", "string", sliceSpec["nodeName"]), tcCol("Driver", "string", sliceSpec["driver"]),
			tcCol("Pool", "string", resourcev1.ResourcePool{}.SwaggerDoc()["name"]), tcAge},
		[]any{slice, "n1", "gpu.example.com", "pool-a", nil})
	e.deleteAfter(ctx, target, dra+"resourceslices/"+slice)

	taintDoc := resourcev1.DeviceTaint{}.SwaggerDoc()
	rule := e.ns + "-taint"
	e.createAt(ctx, dra+"devicetaintrules", object{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": object{"name": rule},
		"spec": object{"deviceSelector": object{"driver": "gpu.example.com", "pool": "pool-a", "device": "none"},
			// timeAdded is given: the real server sets it when unset, the
			// fake does not (see DIVERGENCES.md).
			"taint": object{"key": "example.com/broken", "value": "yes", "effect": "NoSchedule", "timeAdded": "2026-01-02T03:04:05Z"}}}, "create devicetaintrule")
	e.deleteAfter(ctx, target, dra+"devicetaintrules/"+rule)
	cols, cells := tableRow(ctx, t, e.c, dra+"devicetaintrules", map[string]string{"fieldSelector": "metadata.name=" + rule})
	if diff := cmp.Diff([]metav1.TableColumnDefinition{tcName, tcCol("Key", "string", taintDoc["key"]), tcCol("Value", "string", taintDoc["value"]),
		tcCol("Effect", "string", taintDoc["effect"]), tcCol("TimeAdded", "string", taintDoc["timeAdded"]), tcAge}, cols); diff != "" {
		t.Errorf("DeviceTaintRule Table columns mismatch (-want +got):\n%s", diff)
	}
	if len(cells) == 6 && cells[4] != "" {
		cells[4] = "<some age>" // the age of timeAdded, on each server's clock.
	}
	if diff := cmp.Diff([]any{rule, "example.com/broken", "yes", "NoSchedule", "<some age>", nil}, cells); diff != "" {
		t.Errorf("DeviceTaintRule Table cells mismatch (-want +got):\n%s", diff)
	}

	svm := e.ns + "-svm"
	svmPath := "/apis/storagemigration.k8s.io/v1/storageversionmigrations"
	e.checkTable(ctx, svmPath, object{"apiVersion": "storagemigration.k8s.io/v1", "kind": "StorageVersionMigration", "metadata": object{"name": svm},
		"spec": object{"resource": object{"group": "apps", "resource": "deployments"}}},
		[]metav1.TableColumnDefinition{tcCol("Name", "string", tcMetaDoc["name"]), tcCol("Resource", "string", "GroupResource to migrate"),
			tcCol("Status", "string", "Status of the migration")},
		[]any{svm, "deployments.apps", "Unknown"})
	e.deleteAfter(ctx, target, svmPath+"/"+svm)
}

// caCert is a PEM CERTIFICATE block of a new self-signed CA certificate,
// as a ClusterTrustBundle holds.
func caCert(t testing.TB, cn string) []byte {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1900000000, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("create certificate: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
