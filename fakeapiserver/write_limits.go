package fakeapiserver

import (
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// jsonPatchMaxCopyBytes is kube-apiserver's JSONPatchMaxCopyBytes default
// (apiserver pkg/server/config.go): the most a JSON patch's copy operations
// may add to a document, together. Without it a 2 KB patch of 16 copies,
// each doubling a value, grows one object to 64 MiB.
const jsonPatchMaxCopyBytes = 3 * 1024 * 1024

// limitJSONPatchCopies sets json-patch's AccumulatedCopySizeLimit as
// kube-apiserver's New does (apiserver pkg/server/config.go, same loop):
// the library keeps the limit in a package variable, so this is the one
// process-wide setting a Server makes. It only ever lowers the limit (0 is
// no limit), so any number of servers, and a kube-apiserver in the same
// process, agree on it. A patch over the limit fails in Apply with an
// AccumulatedCopySizeError, which handlePatch answers like any patch that
// does not apply: 422, as the real server does.
func limitJSONPatchCopies() {
	for {
		existing := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit)
		if existing > 0 && existing <= jsonPatchMaxCopyBytes {
			return
		}
		if atomic.CompareAndSwapInt64(&jsonpatch.AccumulatedCopySizeLimit, existing, jsonPatchMaxCopyBytes) {
			return
		}
	}
}
