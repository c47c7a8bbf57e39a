package tables

import (
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Printers of apps ControllerRevisions, resource.k8s.io (DRA) kinds and
// StorageVersionMigrations (printers.go printControllerRevision,
// printDeviceClass, printResourceClaim, ..., printStorageVersionMigration).

func controllerRevisionColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Controller", "string", "Controller of the object"),
		column("Revision", "string", appsv1.ControllerRevision{}.SwaggerDoc()["revision"]),
		ageColumn,
	}
}

// printControllerRevision names the controller as kind.group/name in
// lower case (formatResourceName), and the revision as a number though
// the column says string. A controller reference with an unparsable
// apiVersion fails the whole conversion there; here it prints with an
// empty group.
func printControllerRevision(cr *appsv1.ControllerRevision, now time.Time) metav1.TableRow {
	controller := "<none>"
	if ref := metav1.GetControllerOfNoCopy(cr); ref != nil {
		gv, _ := schema.ParseGroupVersion(ref.APIVersion)
		if gk := gv.WithKind(ref.Kind).GroupKind(); gk.Empty() {
			controller = ref.Name
		} else {
			controller = strings.ToLower(gk.String()) + "/" + ref.Name
		}
	}
	return cells(cr.Name, controller, cr.Revision, age(cr.CreationTimestamp.Time, now))
}

func nameAgeColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, ageColumn}
}

func printDeviceClass(dc *resourcev1.DeviceClass, now time.Time) metav1.TableRow {
	return cells(dc.Name, age(dc.CreationTimestamp.Time, now))
}

func printResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate, now time.Time) metav1.TableRow {
	return cells(t.Name, age(t.CreationTimestamp.Time, now))
}

func resourceClaimColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("State", "string", "A summary of the current state (allocated, pending, reserved, etc.)."),
		ageColumn,
	}
}

// printResourceClaim: State joins deleted, pending (not allocated),
// allocated and reserved.
func printResourceClaim(rc *resourcev1.ResourceClaim, now time.Time) metav1.TableRow {
	var states []string
	if rc.DeletionTimestamp != nil {
		states = append(states, "deleted")
	}
	switch {
	case rc.Status.Allocation == nil && rc.DeletionTimestamp == nil:
		states = append(states, "pending")
	case rc.Status.Allocation != nil:
		states = append(states, "allocated")
		if len(rc.Status.ReservedFor) > 0 {
			states = append(states, "reserved")
		}
	}
	return cells(rc.Name, strings.Join(states, ","), age(rc.CreationTimestamp.Time, now))
}

func resourceSliceColumns() []metav1.TableColumnDefinition {
	spec := resourcev1.ResourceSliceSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Node", "string", spec["nodeName"]),
		column("Driver", "string", spec["driver"]),
		column("Pool", "string", resourcev1.ResourcePool{}.SwaggerDoc()["name"]),
		ageColumn,
	}
}

func printResourceSlice(rs *resourcev1.ResourceSlice, now time.Time) metav1.TableRow {
	return cells(rs.Name, ptrOr(rs.Spec.NodeName, ""), rs.Spec.Driver, rs.Spec.Pool.Name, age(rs.CreationTimestamp.Time, now))
}

func deviceTaintRuleColumns() []metav1.TableColumnDefinition {
	doc := resourcev1.DeviceTaint{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Key", "string", doc["key"]),
		column("Value", "string", doc["value"]),
		column("Effect", "string", doc["effect"]),
		column("TimeAdded", "string", doc["timeAdded"]),
		ageColumn,
	}
}

func printDeviceTaintRule(r *resourcev1.DeviceTaintRule, now time.Time) metav1.TableRow {
	var added string
	if t := r.Spec.Taint.TimeAdded; t != nil {
		added = age(t.Time, now)
	}
	return cells(r.Name, r.Spec.Taint.Key, r.Spec.Taint.Value, string(r.Spec.Taint.Effect), added, age(r.CreationTimestamp.Time, now))
}

// storageVersionMigrationColumns: Name without the name format, and no
// Age, as kube-apiserver's.
func storageVersionMigrationColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		column("Name", "string", objectMetaDoc["name"]),
		column("Resource", "string", "GroupResource to migrate"),
		column("Status", "string", "Status of the migration"),
	}
}

// printStorageVersionMigration: Status is the last true Running, Failed
// or Succeeded condition, else Unknown.
func printStorageVersionMigration(m *storagemigrationv1.StorageVersionMigration, _ time.Time) metav1.TableRow {
	status := "Unknown"
	for _, c := range m.Status.Conditions {
		if c.Status != metav1.ConditionTrue {
			continue
		}
		switch c.Type {
		case string(storagemigrationv1.MigrationRunning), string(storagemigrationv1.MigrationFailed), string(storagemigrationv1.MigrationSucceeded):
			status = c.Type
		}
	}
	return cells(m.Name, m.Spec.Resource.String(), status)
}
