// Package conversion holds kube-apiserver's conversions between the served
// versions of the built-in kinds lw-sim stores once, written by hand after
// k8s.io/kubernetes (which cannot be imported: its go.mod needs replace
// directives). Each conversion goes through what kube-apiserver's internal
// type would hold, here the storage version's Go type when it has the
// internal type's fields, so a version converts as the real server's
// versioned -> internal -> versioned chain does, with the same fields
// dropped and the same annotations written and read.
//
//	hpa.go  autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler
//	        (pkg/apis/autoscaling/v1/conversion.go, v2/conversion.go)
package conversion
