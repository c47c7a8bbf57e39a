#!/bin/sh
# build-real.sh DIR builds a real kube-apiserver and etcd into DIR, from Go
# modules alone, at the versions tools/realapiserver's go.mod pins
# (k8s.io/kubernetes v1.37.2, go.etcd.io/etcd/server/v3 v3.7.0), and links
# the kubectl on PATH as DIR/kubectl: the KUBEBUILDER_ASSETS directory of
# `make envtest-suites-real`. The build runs in a throwaway module holding
# a copy of that go.mod and go.sum (so tools/realapiserver's own files are
# never touched); with a warm build cache it takes a minute. The
# kube-apiserver reports its release (/version) as the official build does.
# Run from the repository root.
set -eu

out=${1:?usage: build-real.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-envtest-real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp tools/realapiserver/go.mod tools/realapiserver/go.sum "$tmp/"
cd "$tmp"
go mod edit -module lwsim.local/envtestreal
version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
minor=$(echo "$version" | cut -d. -f2)
pkg=k8s.io/component-base/version
echo "build-real: kube-apiserver $version"
go build -o "$out/kube-apiserver" \
	-ldflags "-X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean" \
	k8s.io/kubernetes/cmd/kube-apiserver
echo "build-real: etcd $(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)"
go build -o "$out/etcd" go.etcd.io/etcd/server/v3
if kubectl=$(command -v kubectl); then
	ln -sf "$kubectl" "$out/kubectl"
else
	echo "build-real: no kubectl on PATH; $out has none"
fi
echo "$out"
