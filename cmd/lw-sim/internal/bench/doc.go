// Package bench measures an API server on the workloads issue 14 sets
// targets for: paged LIST read as raw bytes (JSON and protobuf), paged LIST
// through client-go next to client-go decoding the same bytes itself,
// creates, and watch fan-out. The same workloads run against the in-process
// fake ([StartFake]) and, given a kubeconfig ([FromKubeconfig]), against a
// real kube-apiserver, so `lw-sim bench --against` can print both side by
// side ([Compare]); the Go benchmarks in this package run them against the
// fake for `make bench`.
//
// Every workload talks HTTP to the server, as a client would; none reaches
// into the fake's internals. Each run creates its objects in a namespace
// of its own and leaves them there.
package bench
