package fakeapiserver

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// runtimeObject is a short name for the objects handlers pass around.
type runtimeObject = runtime.Object

var (
	// schemaEmptyGVK clears apiVersion and kind.
	schemaEmptyGVK = schema.GroupVersionKind{}
	// emptyGR is the resource of errors that name none.
	emptyGR = schema.GroupResource{}
)

// mustAccessor returns the object metadata of a registered kind. Every
// served kind has ObjectMeta, so a failure is a programming error.
func mustAccessor(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("fakeapiserver: %T has no object metadata: %v", obj, err))
	}
	return m
}

// formatRV renders a resourceVersion.
func formatRV(rv int64) string { return strconv.FormatInt(rv, 10) }

// newUID returns a random UUID, as metadata.uid and Audit-Id use.
func newUID() string { return string(uuid.NewUUID()) }
