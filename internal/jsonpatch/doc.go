// Package jsonpatch is gopkg.in/evanphx/json-patch.v4 v4.13.0's RFC 6902
// JSON patch (patch.go, errors.go; BSD-3-Clause, LICENSE), the version
// kube-apiserver v1.37.2 applies JSON patches with, so every answer and
// error text is the real server's, with one change: the limit on what
// copy operations may add is an argument ([Patch.ApplyWithLimit]) instead
// of the library's package variable AccumulatedCopySizeLimit, which
// kube-apiserver sets in New for its whole process. Many fake servers,
// and other users of the library, share a test binary; none of them
// changes state the others see. Merge patches have no such limit and
// stay the library's (jsonpatch.MergePatch).
package jsonpatch
