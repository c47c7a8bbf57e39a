// Package realapiserver runs a real etcd and kube-apiserver (v1.37.2) on
// loopback for lw-sim's conformance suite.
//
// It is a separate Go module so that lw-sim's main module never depends on
// k8s.io/kubernetes. The server is a test binary rather than a main program:
// testserver.RunEtcd and app/testing.StartTestServer need a *testing.T, and
// `go test -c` gives us a genuine one. Build and run it with
//
//	go test -c -o bin/realapiserver .
//	REALAPISERVER_DIR=/tmp/x bin/realapiserver -test.run=TestServe -test.timeout=0
//
// Once ready it writes, under REALAPISERVER_DIR:
//
//	kubeconfig   admin kubeconfig (the test server's loopback client config)
//	client-ca.crt, client-ca.key
//	             the --client-ca-file CA and its key, for clients to make
//	             certificates the server authenticates (CN user, O groups)
//	control-url  base URL of a loopback HTTP control endpoint
//	ready        empty file, written last
//
// The control endpoint serves:
//
//	POST /compact?rv=N   compact etcd at revision N the way the apiserver's own
//	                     compactor does (CAS on compact_rev_key, then etcd
//	                     Compact), then wait until the watch cache has noticed
//	                     (its compactor polls every 15s).
//	POST /restart        replace the kube-apiserver by a new one over the same
//	                     etcd (new port, CA and token; kubeconfig rewritten).
//	                     Its watch caches start at etcd's current revision.
//	POST /quit           shut down cleanly.
//
// The server also stops when its stdin is closed or on SIGTERM/SIGINT.
package realapiserver
