package fakeapiserver

import "k8s.io/apimachinery/pkg/version"

// Version returns what every server answers on /version: kube-apiserver
// v1.37.2 ("v1.37.2+lwsim"), with the commit and build date of this binary
// when it carries a VCS stamp and the Go version it was built with. lw-sim
// version prints it, so the emulated release is written in one place.
func Version() version.Info { return versionInfo() }
