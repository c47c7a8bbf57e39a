package fakeapiserver

// jsonPatchMaxCopyBytes is kube-apiserver's JSONPatchMaxCopyBytes default
// (apiserver pkg/server/config.go): the most a JSON patch's copy operations
// may add to a document, together. Without it a 2 KB patch of 16 copies,
// each doubling a value, grows one object to 64 MiB. A patch over it fails
// in ApplyWithLimit with an AccumulatedCopySizeError, which handlePatch
// answers like any patch that does not apply: 422, as the real server
// does. kube-apiserver sets the limit in a package variable of json-patch
// for its whole process; lw-sim applies patches with a copy of that
// library taking it per call (internal/jsonpatch), so no server changes
// what another, or any other user of json-patch in the process, sees.
const jsonPatchMaxCopyBytes = 3 * 1024 * 1024
