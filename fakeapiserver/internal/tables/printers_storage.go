package tables

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// storage.k8s.io printers (printers.go printStorageClass, printCSIDriver,
// printCSINode, printVolumeAttachment, printVolumeAttributesClass); the
// volumes and claims are in printers_volumes.go. Fields v1 defaulting
// fills before the printer runs (reclaim policy, binding mode, CSI driver
// flags) are read as kube-apiserver would have stored them.

func storageClassColumns() []metav1.TableColumnDefinition {
	doc := storagev1.StorageClass{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Provisioner", "string", doc["provisioner"]),
		column("ReclaimPolicy", "string", doc["reclaimPolicy"]),
		column("VolumeBindingMode", "string", doc["volumeBindingMode"]),
		column("AllowVolumeExpansion", "string", doc["allowVolumeExpansion"]),
		ageColumn,
	}
}

// printStorageClass prints one class; defaultClass is the name the list
// marks " (default)" (empty for a single object, which is never marked).
func printStorageClass(sc *storagev1.StorageClass, defaultClass string, now time.Time) metav1.TableRow {
	name := sc.Name
	if defaultClass != "" && name == defaultClass {
		name += " (default)"
	}
	return cells(name, sc.Provisioner, string(ptrOr(sc.ReclaimPolicy, corev1.PersistentVolumeReclaimDelete)),
		string(ptrOr(sc.VolumeBindingMode, storagev1.VolumeBindingImmediate)), ptrOr(sc.AllowVolumeExpansion, false),
		age(sc.CreationTimestamp.Time, now))
}

// effectiveDefaultStorageClass is getEffectiveDefaultStorageClass: of the
// classes annotated as default, the newest, then the first by name.
func effectiveDefaultStorageClass(classes []*storagev1.StorageClass) string {
	var best *storagev1.StorageClass
	for _, sc := range classes {
		if !isDefaultStorageClass(sc.ObjectMeta) {
			continue
		}
		switch {
		case best == nil, sc.CreationTimestamp.After(best.CreationTimestamp.Time),
			sc.CreationTimestamp.Equal(&best.CreationTimestamp) && sc.Name < best.Name:
			best = sc
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

// isDefaultStorageClass is storageutil.IsDefaultAnnotation: the GA or the
// beta is-default-class annotation set to "true".
func isDefaultStorageClass(m metav1.ObjectMeta) bool {
	return m.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		m.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

func volumeAttributesClassColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("DriverName", "string", storagev1.VolumeAttributesClass{}.SwaggerDoc()["driverName"]), ageColumn}
}

func printVolumeAttributesClass(vac *storagev1.VolumeAttributesClass, now time.Time) metav1.TableRow {
	return cells(vac.Name, vac.DriverName, age(vac.CreationTimestamp.Time, now))
}

func csiDriverColumns() []metav1.TableColumnDefinition {
	spec := storagev1.CSIDriverSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("AttachRequired", "boolean", spec["attachRequired"]),
		column("PodInfoOnMount", "boolean", spec["podInfoOnMount"]),
		column("StorageCapacity", "boolean", spec["storageCapacity"]),
		column("TokenRequests", "string", spec["tokenRequests"]),
		column("RequiresRepublish", "boolean", spec["requiresRepublish"]),
		column("Modes", "string", spec["volumeLifecycleModes"]),
		ageColumn,
	}
}

// printCSIDriver: SetDefaults_CSIDriver stores an empty mode list as
// [Persistent], so "<none>" is printed only for a list it cannot default.
func printCSIDriver(d *storagev1.CSIDriver, now time.Time) metav1.TableRow {
	modes := []string{string(storagev1.VolumeLifecyclePersistent)}
	if len(d.Spec.VolumeLifecycleModes) > 0 {
		modes = modes[:0]
		for _, m := range d.Spec.VolumeLifecycleModes {
			modes = append(modes, string(m))
		}
	}
	tokenRequests := "<unset>"
	if d.Spec.TokenRequests != nil {
		audiences := make([]string, 0, len(d.Spec.TokenRequests))
		for _, t := range d.Spec.TokenRequests {
			audiences = append(audiences, t.Audience)
		}
		tokenRequests = strings.Join(audiences, ",")
	}
	return cells(d.Name, ptrOr(d.Spec.AttachRequired, true), ptrOr(d.Spec.PodInfoOnMount, false), ptrOr(d.Spec.StorageCapacity, false),
		tokenRequests, ptrOr(d.Spec.RequiresRepublish, false), strings.Join(modes, ","), age(d.CreationTimestamp.Time, now))
}

func csiNodeColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"), ageColumn}
}

func printCSINode(n *storagev1.CSINode, now time.Time) metav1.TableRow {
	return cells(n.Name, int64(len(n.Spec.Drivers)), age(n.CreationTimestamp.Time, now))
}

func volumeAttachmentColumns() []metav1.TableColumnDefinition {
	spec := storagev1.VolumeAttachmentSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		// kube-apiserver gives Attacher the name format too.
		{Name: "Attacher", Type: "string", Format: "name", Description: spec["attacher"]},
		column("PV", "string", storagev1.VolumeAttachmentSource{}.SwaggerDoc()["persistentVolumeName"]),
		column("Node", "string", spec["nodeName"]),
		column("Attached", "boolean", storagev1.VolumeAttachmentStatus{}.SwaggerDoc()["attached"]),
		ageColumn,
	}
}

func printVolumeAttachment(va *storagev1.VolumeAttachment, now time.Time) metav1.TableRow {
	return cells(va.Name, va.Spec.Attacher, ptrOr(va.Spec.Source.PersistentVolumeName, ""), va.Spec.NodeName, va.Status.Attached,
		age(va.CreationTimestamp.Time, now))
}

// storageClassPrinter prints a single class unmarked and a list with its
// effective default marked (printStorageClassList).
func storageClassPrinter() printer {
	p := printerOf(storageClassColumns(), func(sc *storagev1.StorageClass, now time.Time) metav1.TableRow {
		return printStorageClass(sc, "", now)
	})
	p.listRow = func(objs []runtime.Object) rowFunc {
		classes := make([]*storagev1.StorageClass, 0, len(objs))
		for _, obj := range objs {
			if sc, ok := obj.(*storagev1.StorageClass); ok {
				classes = append(classes, sc)
			}
		}
		defaultClass := effectiveDefaultStorageClass(classes)
		return printerOf(storageClassColumns(), func(sc *storagev1.StorageClass, now time.Time) metav1.TableRow {
			return printStorageClass(sc, defaultClass, now)
		}).row
	}
	return p
}
