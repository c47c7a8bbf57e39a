package conformance

// Cases for the server-side Table (kubectl get) of the built-in kinds
// whose printers are in fakeapiserver/internal/tables beyond the workload
// ones: each creates objects of a kind and compares the whole column
// definitions (name, type, format, priority, description) and the row
// cells, with the Age cell blanked, to kube-apiserver's printers.go.

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tableCases are the cases of this file, in the order [Cases] runs them.
func tableCases() []Case {
	return []Case{
		{Name: "TableCertificateSigningRequest", Run: runTableCertificateSigningRequest},
		{Name: "TableHorizontalPodAutoscaler", Run: runTableHorizontalPodAutoscaler},
		{Name: "TablePersistentVolumes", Run: runTablePersistentVolumes},
		{Name: "TableEndpoints", Run: runTableEndpoints},
		{Name: "TableQuotaAndNetworkPolicy", Run: runTableQuotaAndNetworkPolicy},
		{Name: "TableStorageClasses", Run: runTableStorageClasses},
	}
}

var (
	tcMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()
	tcName    = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: tcMetaDoc["name"]}
	tcAge     = tcCol("Age", "string", tcMetaDoc["creationTimestamp"])
)

func tcCol(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description}
}

func tcWide(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Priority: 1, Description: description}
}

// tableRow lists path (with query) as a Table and returns its column
// definitions and the cells of its single row, the Age cell blanked.
func tableRow(ctx context.Context, t *testing.T, c *client, path string, query map[string]string) ([]metav1.TableColumnDefinition, []any) {
	t.Helper()
	req := request{Path: path, Accept: tableAccept}
	for k, v := range query {
		req.Query = q(k, v)
	}
	r := c.do(ctx, t, req)
	r.mustCode(t, http.StatusOK, "list "+path+" as Table")
	var table metav1.Table
	r.decode(t, &table)
	if len(table.Rows) != 1 {
		t.Fatalf("Table of %s: rows %v; want one", path, table.Rows)
	}
	cells := slices.Clone(table.Rows[0].Cells)
	for i, col := range table.ColumnDefinitions {
		if col.Name == "Age" && i < len(cells) {
			cells[i] = nil
		}
	}
	return table.ColumnDefinitions, cells
}

// checkTable creates body at path (a collection) and compares the Table
// of a list of it, filtered to its name, with want.
func (e *env) checkTable(ctx context.Context, path string, body object, wantCols []metav1.TableColumnDefinition, wantCells []any) {
	e.t.Helper()
	e.createAt(ctx, path, body, "create "+path)
	name := body["metadata"].(object)["name"].(string)
	e.checkListed(ctx, path, name, wantCols, wantCells)
}

// checkListed compares the Table of the list at path filtered to name.
func (e *env) checkListed(ctx context.Context, path, name string, wantCols []metav1.TableColumnDefinition, wantCells []any) {
	e.t.Helper()
	cols, cells := tableRow(ctx, e.t, e.c, path, map[string]string{"fieldSelector": "metadata.name=" + name})
	if diff := cmp.Diff(wantCols, cols); diff != "" {
		e.t.Errorf("Table columns of %s mismatch (-want +got):\n%s", path, diff)
	}
	if diff := cmp.Diff(wantCells, cells); diff != "" {
		e.t.Errorf("Table cells of %s %s mismatch (-want +got):\n%s", path, name, diff)
	}
}

// deleteAfter deletes the cluster-scoped object at path when the case
// ends, best effort.
func (e *env) deleteAfter(ctx context.Context, target Target, path string) {
	e.t.Cleanup(func() {
		newClient(e.t, target).do(context.WithoutCancel(ctx), e.t, request{Method: http.MethodDelete, Path: path})
	})
}

// runTableCertificateSigningRequest: NAME, AGE, SIGNERNAME, REQUESTOR
// (spec.username, set by the server), REQUESTEDDURATION and CONDITION,
// Pending then Approved.
func runTableCertificateSigningRequest(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "lw-sim"}}, newKey(t))
	if err != nil {
		t.Fatalf("create certificate request: %v", err)
	}
	name := e.ns + "-csr"
	csr := object{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": object{"name": name},
		"spec": object{"request": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			"signerName": "example.com/signer", "usages": []any{"digital signature"}, "expirationSeconds": 3600}}
	e.createAt(ctx, csrPath, csr, "create csr")
	e.deleteAfter(ctx, target, csrPath+"/"+name)
	var stored struct {
		Spec struct {
			Username string `json:"username"`
		} `json:"spec"`
	}
	e.c.do(ctx, t, request{Path: csrPath + "/" + name}).decode(t, &stored)
	spec := certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()
	cols := []metav1.TableColumnDefinition{tcName, tcAge,
		tcCol("SignerName", "string", spec["signerName"]),
		tcCol("Requestor", "string", spec["request"]),
		tcCol("RequestedDuration", "string", spec["expirationSeconds"]),
		tcCol("Condition", "string", certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]),
	}
	e.checkListed(ctx, csrPath, name, cols, []any{name, nil, "example.com/signer", stored.Spec.Username, "60m", "Pending"})

	var full object
	e.c.do(ctx, t, request{Path: csrPath + "/" + name}).decode(t, &full)
	full["status"] = object{"conditions": []any{object{"type": "Approved", "status": "True", "reason": "R", "message": "ok"}}}
	e.c.do(ctx, t, request{Method: http.MethodPut, Path: csrPath + "/" + name + "/approval", Body: full}).mustCode(t, http.StatusOK, "approve csr")
	e.checkListed(ctx, csrPath, name, cols, []any{name, nil, "example.com/signer", stored.Spec.Username, "60m", "Approved"})
}

// hpaColumns are the HorizontalPodAutoscaler columns of both versions.
func hpaColumns() []metav1.TableColumnDefinition {
	spec, status := autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc(), autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{tcName,
		tcCol("Reference", "string", spec["scaleTargetRef"]),
		tcCol("Targets", "string", spec["metrics"]),
		tcCol("MinPods", "string", spec["minReplicas"]),
		tcCol("MaxPods", "string", spec["maxReplicas"]),
		tcCol("Replicas", "string", status["currentReplicas"]),
		tcAge,
	}
}

// runTableHorizontalPodAutoscaler: the default CPU target of an HPA
// without metrics (v2 defaulting, v1 conversion), current/target of each
// metric kind with "+ N more..." past two, and autoscaling/v1's CPU
// percentages.
func runTableHorizontalPodAutoscaler(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	v2 := "/apis/autoscaling/v2/namespaces/" + e.ns + "/horizontalpodautoscalers"
	e.checkTable(ctx, v2, hpa("autoscaling/v2", "plain"), hpaColumns(), []any{"plain", "Deployment/d", "cpu: <unknown>/80%", "1", float64(3), float64(0), nil})

	many := hpa("autoscaling/v2", "many")
	many["spec"].(object)["minReplicas"] = 2
	many["spec"].(object)["metrics"] = []any{
		object{"type": "Resource", "resource": object{"name": "memory", "target": object{"type": "AverageValue", "averageValue": "100Mi"}}},
		object{"type": "Pods", "pods": object{"metric": object{"name": "qps"}, "target": object{"type": "AverageValue", "averageValue": "10"}}},
		object{"type": "External", "external": object{"metric": object{"name": "queue"}, "target": object{"type": "Value", "value": "5"}}},
	}
	e.createAt(ctx, v2, many, "create hpa many")
	e.patchStatus(ctx, v2+"/many", object{"currentReplicas": 2, "desiredReplicas": 2, "currentMetrics": []any{
		object{"type": "Resource", "resource": object{"name": "memory", "current": object{"averageValue": "50Mi"}}},
	}}).mustCode(t, http.StatusOK, "hpa many status")
	e.checkListed(ctx, v2, "many", hpaColumns(), []any{"many", "Deployment/d", "memory: 50Mi/100Mi, <unknown>/10 + 1 more...", "2", float64(3), float64(2), nil})

	v1 := "/apis/autoscaling/v1/namespaces/" + e.ns + "/horizontalpodautoscalers"
	e.checkTable(ctx, v1, hpa("autoscaling/v1", "one"), hpaColumns(), []any{"one", "Deployment/d", "cpu: <unknown>/80%", "1", float64(3), float64(0), nil})
	cpu := hpa("autoscaling/v1", "cpu")
	cpu["spec"].(object)["targetCPUUtilizationPercentage"] = 50
	e.createAt(ctx, v1, cpu, "create v1 hpa cpu")
	e.patchStatus(ctx, v1+"/cpu", object{"currentReplicas": 1, "desiredReplicas": 1, "currentCPUUtilizationPercentage": 30}).mustCode(t, http.StatusOK, "v1 hpa status")
	e.checkListed(ctx, v1, "cpu", hpaColumns(), []any{"cpu", "Deployment/d", "cpu: 30%/50%", "1", float64(3), float64(1), nil})
}

// runTablePersistentVolumes: a claim before and after it is bound, and a
// volume, with the phases, reclaim policy and volume mode v1 defaulting
// gives them.
func runTablePersistentVolumes(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	pvcSpec, pvcStatus := corev1.PersistentVolumeClaimSpec{}.SwaggerDoc(), corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
	pvcCols := []metav1.TableColumnDefinition{tcName,
		tcCol("Status", "string", pvcStatus["phase"]),
		tcCol("Volume", "string", pvcSpec["volumeName"]),
		tcCol("Capacity", "string", pvcStatus["capacity"]),
		tcCol("Access Modes", "string", pvcStatus["accessModes"]),
		tcCol("StorageClass", "string", "StorageClass of the pvc"),
		tcCol("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
		tcAge,
		tcWide("VolumeMode", "string", pvcSpec["volumeMode"]),
	}
	pvcs := "/api/v1/namespaces/" + e.ns + "/persistentvolumeclaims"
	claim := func(name string, extra object) object {
		spec := object{"accessModes": []any{"ReadWriteOnce"}, "resources": object{"requests": object{"storage": "1Gi"}}}
		for k, v := range extra {
			spec[k] = v
		}
		return object{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": object{"name": name}, "spec": spec}
	}
	e.checkTable(ctx, pvcs, claim("data", nil), pvcCols, []any{"data", "Pending", "", "", "", "", "<unset>", nil, "Filesystem"})
	e.createAt(ctx, pvcs, claim("bound", object{"volumeName": e.ns + "-pv", "storageClassName": "slow", "volumeMode": "Block"}), "create bound pvc")
	e.patchStatus(ctx, pvcs+"/bound", object{"phase": "Bound", "accessModes": []any{"ReadWriteMany", "ReadWriteOnce"},
		"capacity": object{"storage": "2Gi"}}).mustCode(t, http.StatusOK, "bind pvc status")
	e.checkListed(ctx, pvcs, "bound", pvcCols, []any{"bound", "Bound", e.ns + "-pv", "2Gi", "RWO,RWX", "slow", "<unset>", nil, "Block"})

	pvSpec, pvStatus := corev1.PersistentVolumeSpec{}.SwaggerDoc(), corev1.PersistentVolumeStatus{}.SwaggerDoc()
	pvCols := []metav1.TableColumnDefinition{tcName,
		tcCol("Capacity", "string", pvSpec["capacity"]),
		tcCol("Access Modes", "string", pvSpec["accessModes"]),
		tcCol("Reclaim Policy", "string", pvSpec["persistentVolumeReclaimPolicy"]),
		tcCol("Status", "string", pvStatus["phase"]),
		tcCol("Claim", "string", pvSpec["claimRef"]),
		tcCol("StorageClass", "string", "StorageClass of the pv"),
		tcCol("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
		tcCol("Reason", "string", pvStatus["reason"]),
		tcAge,
		tcWide("VolumeMode", "string", pvSpec["volumeMode"]),
	}
	pvName := e.ns + "-pv"
	pv := object{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": object{"name": pvName},
		"spec": object{"capacity": object{"storage": "2Gi"}, "accessModes": []any{"ReadWriteMany", "ReadOnlyMany", "ReadWriteOnce"},
			"hostPath": object{"path": "/tmp/lwsim"}, "storageClassName": "slow",
			"claimRef": object{"namespace": e.ns, "name": "bound"}}}
	e.checkTable(ctx, "/api/v1/persistentvolumes", pv, pvCols, []any{pvName, "2Gi", "RWO,ROX,RWX", "Retain", "Pending", e.ns + "/bound", "slow", "<unset>", "", nil, "Filesystem"})
	e.deleteAfter(ctx, target, "/api/v1/persistentvolumes/"+pvName)
}

// runTableEndpoints: Endpoints show up to three address:port pairs and
// EndpointSlices their ports and addresses, both with "+ N more...".
func runTableEndpoints(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	eps := "/api/v1/namespaces/" + e.ns + "/endpoints"
	epCols := []metav1.TableColumnDefinition{tcName, tcCol("Endpoints", "string", corev1.Endpoints{}.SwaggerDoc()["subsets"]), tcAge}
	e.checkTable(ctx, eps, object{"apiVersion": "v1", "kind": "Endpoints", "metadata": object{"name": "none"}}, epCols, []any{"none", "<none>", nil})
	ep := object{"apiVersion": "v1", "kind": "Endpoints", "metadata": object{"name": "web"}, "subsets": []any{
		object{"addresses": []any{object{"ip": "10.0.0.1"}, object{"ip": "10.0.0.2"}}, "ports": []any{object{"name": "http", "port": 80}, object{"name": "https", "port": 443}}},
		object{"addresses": []any{object{"ip": "fd00::1"}}},
	}}
	e.checkTable(ctx, eps, ep, epCols, []any{"web", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more...", nil})

	doc := discoveryv1.EndpointSlice{}.SwaggerDoc()
	esCols := []metav1.TableColumnDefinition{tcName,
		tcCol("AddressType", "string", doc["addressType"]),
		tcCol("Ports", "string", doc["ports"]),
		tcCol("Endpoints", "string", doc["endpoints"]),
		tcAge,
	}
	slices := "/apis/discovery.k8s.io/v1/namespaces/" + e.ns + "/endpointslices"
	es := object{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": object{"name": "web-abc"}, "addressType": "IPv4",
		"ports": []any{object{"name": "http", "port": 80}, object{"name": "named"}},
		"endpoints": []any{object{"addresses": []any{"10.0.0.1"}}, object{"addresses": []any{"10.0.0.2"}},
			object{"addresses": []any{"10.0.0.3"}}, object{"addresses": []any{"10.0.0.4"}}}}
	e.checkTable(ctx, slices, es, esCols, []any{"web-abc", "IPv4", "80,named", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...", nil})
	empty := object{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": object{"name": "empty"}, "addressType": "IPv6", "endpoints": []any{}}
	e.checkTable(ctx, slices, empty, esCols, []any{"empty", "IPv6", "<unset>", "<unset>", nil})
}

// runTableQuotaAndNetworkPolicy: a ResourceQuota's Request and Limit
// columns from its status, and a NetworkPolicy's pod selector.
func runTableQuotaAndNetworkPolicy(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rqs := "/api/v1/namespaces/" + e.ns + "/resourcequotas"
	rqCols := []metav1.TableColumnDefinition{tcName,
		tcCol("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
		tcCol("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
		tcAge,
	}
	e.createAt(ctx, rqs, object{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": object{"name": "q"},
		"spec": object{"hard": object{"pods": "10", "limits.memory": "1Gi", "requests.cpu": "2"}}}, "create quota")
	e.patchStatus(ctx, rqs+"/q", object{"hard": object{"pods": "10", "limits.memory": "1Gi", "requests.cpu": "2"},
		"used": object{"pods": "1", "requests.cpu": "500m"}}).mustCode(t, http.StatusOK, "quota status")
	e.checkListed(ctx, rqs, "q", rqCols, []any{"q", "pods: 1/10, requests.cpu: 500m/2", "limits.memory: 0/1Gi", nil})

	nps := "/apis/networking.k8s.io/v1/namespaces/" + e.ns + "/networkpolicies"
	npCols := []metav1.TableColumnDefinition{tcName, tcCol("Pod-Selector", "string", networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]), tcAge}
	e.checkTable(ctx, nps, object{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": object{"name": "all"},
		"spec": object{"podSelector": object{}}}, npCols, []any{"all", "<none>", nil})
	e.checkTable(ctx, nps, object{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": object{"name": "web"},
		"spec": object{"podSelector": object{"matchLabels": object{"app": "web"},
			"matchExpressions": []any{object{"key": "tier", "operator": "In", "values": []any{"a", "b"}}}}}},
		npCols, []any{"web", "app=web,tier in (a,b)", nil})
}

// runTableStorageClasses: StorageClass, VolumeAttributesClass, CSIDriver,
// CSINode and VolumeAttachment, with the defaults
// v1 gives unset fields; CSIStorageCapacity has none. No class is made the default: the real server's
// DefaultStorageClass admission would give it to other cases' claims.
func runTableStorageClasses(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	const storage = "/apis/storage.k8s.io/v1/"
	scDoc := storagev1.StorageClass{}.SwaggerDoc()
	scCols := []metav1.TableColumnDefinition{tcName,
		tcCol("Provisioner", "string", scDoc["provisioner"]),
		tcCol("ReclaimPolicy", "string", scDoc["reclaimPolicy"]),
		tcCol("VolumeBindingMode", "string", scDoc["volumeBindingMode"]),
		tcCol("AllowVolumeExpansion", "string", scDoc["allowVolumeExpansion"]),
		tcAge,
	}
	plain, wait := e.ns+"-plain", e.ns+"-wait"
	e.checkTable(ctx, storage+"storageclasses", object{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": object{"name": plain},
		"provisioner": "example.com/csi"}, scCols, []any{plain, "example.com/csi", "Delete", "Immediate", false, nil})
	e.deleteAfter(ctx, target, storage+"storageclasses/"+plain)
	e.checkTable(ctx, storage+"storageclasses", object{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": object{"name": wait},
		"provisioner": "example.com/csi", "reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": true},
		scCols, []any{wait, "example.com/csi", "Retain", "WaitForFirstConsumer", true, nil})
	e.deleteAfter(ctx, target, storage+"storageclasses/"+wait)

	vac := e.ns + "-vac"
	e.checkTable(ctx, storage+"volumeattributesclasses", object{"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttributesClass",
		"metadata": object{"name": vac}, "driverName": "example.com/csi", "parameters": object{"iops": "100"}},
		[]metav1.TableColumnDefinition{tcName, tcCol("DriverName", "string", storagev1.VolumeAttributesClass{}.SwaggerDoc()["driverName"]), tcAge},
		[]any{vac, "example.com/csi", nil})
	e.deleteAfter(ctx, target, storage+"volumeattributesclasses/"+vac)

	driverSpec := storagev1.CSIDriverSpec{}.SwaggerDoc()
	driverCols := []metav1.TableColumnDefinition{tcName,
		tcCol("AttachRequired", "boolean", driverSpec["attachRequired"]),
		tcCol("PodInfoOnMount", "boolean", driverSpec["podInfoOnMount"]),
		tcCol("StorageCapacity", "boolean", driverSpec["storageCapacity"]),
		tcCol("TokenRequests", "string", driverSpec["tokenRequests"]),
		tcCol("RequiresRepublish", "boolean", driverSpec["requiresRepublish"]),
		tcCol("Modes", "string", driverSpec["volumeLifecycleModes"]),
		tcAge,
	}
	driver := e.ns + ".csi.example.com"
	e.checkTable(ctx, storage+"csidrivers", object{"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": object{"name": driver},
		"spec": object{}}, driverCols, []any{driver, true, false, false, "<unset>", false, "Persistent", nil})
	e.deleteAfter(ctx, target, storage+"csidrivers/"+driver)
	tokens := e.ns + ".tokens.example.com"
	e.checkTable(ctx, storage+"csidrivers", object{"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": object{"name": tokens},
		"spec": object{"attachRequired": false, "podInfoOnMount": true, "tokenRequests": []any{object{"audience": "a"}, object{"audience": "b"}},
			"requiresRepublish": true, "volumeLifecycleModes": []any{"Persistent", "Ephemeral"}}},
		driverCols, []any{tokens, false, true, false, "a,b", true, "Persistent,Ephemeral", nil})
	e.deleteAfter(ctx, target, storage+"csidrivers/"+tokens)

	node := e.ns + "-node"
	e.checkTable(ctx, storage+"csinodes", object{"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": object{"name": node},
		"spec": object{"drivers": []any{object{"name": "csi.example.com", "nodeID": "n1"}}}},
		[]metav1.TableColumnDefinition{tcName, tcCol("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"), tcAge},
		[]any{node, float64(1), nil})
	e.deleteAfter(ctx, target, storage+"csinodes/"+node)

	// CSIStorageCapacity has no printer: the default Name and Created At.
	caps := storage + "namespaces/" + e.ns + "/csistoragecapacities"
	e.createAt(ctx, caps, object{"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
		"metadata": object{"name": "cap"}, "storageClassName": "slow", "capacity": "10Gi"}, "create csistoragecapacity")
	cols, cells := tableRow(ctx, t, e.c, caps, nil)
	if diff := cmp.Diff([]metav1.TableColumnDefinition{tcName, tcCol("Created At", "date", tcMetaDoc["creationTimestamp"])}, cols); diff != "" {
		t.Errorf("CSIStorageCapacity Table columns mismatch (-want +got):\n%s", diff)
	}
	if len(cells) != 2 || cells[0] != "cap" {
		t.Errorf("CSIStorageCapacity Table cells = %v, want cap and its creation time", cells)
	}

	vaSpec := storagev1.VolumeAttachmentSpec{}.SwaggerDoc()
	va := e.ns + "-va"
	e.checkTable(ctx, storage+"volumeattachments", object{"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": object{"name": va},
		"spec": object{"attacher": "csi.example.com", "nodeName": "n1", "source": object{"persistentVolumeName": "pv1"}}},
		[]metav1.TableColumnDefinition{tcName,
			{Name: "Attacher", Type: "string", Format: "name", Description: vaSpec["attacher"]},
			tcCol("PV", "string", storagev1.VolumeAttachmentSource{}.SwaggerDoc()["persistentVolumeName"]),
			tcCol("Node", "string", vaSpec["nodeName"]),
			tcCol("Attached", "boolean", storagev1.VolumeAttachmentStatus{}.SwaggerDoc()["attached"]),
			tcAge,
		}, []any{va, "csi.example.com", "pv1", "n1", false, nil})
	e.deleteAfter(ctx, target, storage+"volumeattachments/"+va)
}
