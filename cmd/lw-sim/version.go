package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/version"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// versionInfo is what lw-sim version prints.
type versionInfo struct {
	// Version is the lw-sim module's version: a release tag when built
	// by go install ...@version, "(devel)" from a checkout.
	Version string `json:"version"`
	// GoVersion is the Go release that built the binary.
	GoVersion string `json:"goVersion"`
	// Kubernetes is the kube-apiserver the fake server emulates, as its
	// /version answers.
	Kubernetes version.Info `json:"kubernetes"`
}

func newVersionCommand() *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the lw-sim version, the Go version and the Kubernetes version it emulates",
		Long: `Print the lw-sim version, the Go version that built it and the kube-apiserver
release the fake server emulates (what its /version answers).`,
		Example: `  lw-sim version
  lw-sim version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := currentVersion()
			if out.isData() {
				return out.print(cmd.OutOrStdout(), info)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "lw-sim version: %s\n", info.Version)
			fmt.Fprintf(w, "Go version: %s\n", info.GoVersion)
			fmt.Fprintf(w, "Kubernetes version (emulated): %s\n", info.Kubernetes.GitVersion)
			return nil
		},
	}
	addOutputFlag(cmd, &out)
	return cmd
}

// currentVersion reads the module version from the binary's build
// information and the emulated release from the fake server.
func currentVersion() versionInfo {
	info := versionInfo{Version: "(unknown)", GoVersion: runtime.Version(), Kubernetes: fakeapiserver.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		info.Version = bi.Main.Version
	}
	return info
}
