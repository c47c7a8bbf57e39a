// Package etag computes the entity tag kube-apiserver gives the documents
// it serves whole: aggregated discovery (apiserver
// pkg/endpoints/discovery/aggregated/etag.go calculateETag) and the
// OpenAPI v3 documents and root (kube-openapi pkg/handler3 computeETag),
// which also serves as the ?hash= of a v3 document's URL.
package etag

import (
	"crypto/sha512"
	"fmt"
)

// Of is the uppercase hexadecimal SHA-512 of body, unquoted.
func Of(body []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(body))
}
