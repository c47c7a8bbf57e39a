package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
)

const (
	// assetsBinary is the copy of lw-sim in an assets directory; the
	// stand-ins are links to it.
	assetsBinary = "lw-sim"
	// kubectlName is the third executable envtest looks for in
	// KUBEBUILDER_ASSETS (envtest server.go configureBinaryPaths); it runs
	// it only for ControlPlane.KubeCtl().Run.
	kubectlName = "kubectl"
)

// envtestAssetsOptions are envtest-assets' flags.
type envtestAssetsOptions struct {
	kubectl string
}

func newEnvtestAssetsCommand() *cobra.Command {
	var o envtestAssetsOptions
	cmd := &cobra.Command{
		Use:   "envtest-assets DIR",
		Short: "Write kube-apiserver and etcd executables for envtest (KUBEBUILDER_ASSETS=DIR) that run lw-sim",
		Long: `Write into DIR the executables controller-runtime's envtest starts in its
normal mode, so that suites run against lw-sim's fake API server with no code
change: point KUBEBUILDER_ASSETS at DIR.

DIR gets a copy of this lw-sim executable and two links to it, kube-apiserver
and etcd; run under those names, lw-sim is "lw-sim kube-apiserver" (the fake
API server, on kube-apiserver's flags: HTTPS with envtest's certificate) and
"lw-sim etcd" (health checks only; it stores nothing). Being a copy, DIR
keeps working from any process after this one ends and whatever happens to
the lw-sim it was written by (a "go run" binary is deleted on exit). DIR/kubectl
links the kubectl on PATH (or --kubectl), which envtest runs only for
ControlPlane.KubeCtl().

DIR is created if missing; running again replaces lw-sim's files. A file
lw-sim did not write is never replaced: use an empty directory rather than a
setup-envtest one. The absolute path of DIR is printed on stdout.`,
		Example: `  export KUBEBUILDER_ASSETS=$(lw-sim envtest-assets /tmp/lw-sim-envtest)
  go test ./...   # envtest suites now start lw-sim in milliseconds`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEnvtestAssets(cmd, args[0], o)
		},
	}
	cmd.Flags().StringVar(&o.kubectl, "kubectl", "",
		"`path` of the kubectl to link as DIR/kubectl (default: the kubectl on PATH;\n"+
			"without one DIR has no kubectl)")
	return cmd
}

// runEnvtestAssets writes the assets directory and prints its path.
func runEnvtestAssets(cmd *cobra.Command, dir string, o envtestAssetsOptions) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("envtest-assets: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("envtest-assets: find this executable: %w", err)
	}
	kubectl, err := o.kubectlPath()
	if err != nil {
		return err
	}
	if kubectl == "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "lw-sim envtest-assets: warning: no kubectl on PATH; %s has none (envtest needs one only for ControlPlane.KubeCtl)\n", dir)
	}
	if err := writeEnvtestAssets(dir, self, kubectl); err != nil {
		return fmt.Errorf("envtest-assets: %w", err)
	}
	fmt.Fprintln(cmd.OutOrStdout(), dir)
	return nil
}

// kubectlPath is the absolute path of the kubectl to link: --kubectl, or
// the one on PATH, or "" when there is none on PATH.
func (o envtestAssetsOptions) kubectlPath() (string, error) {
	p := o.kubectl
	if p == "" {
		found, err := exec.LookPath(kubectlName)
		if err != nil {
			return "", nil
		}
		p = found
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("envtest-assets: --kubectl: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("envtest-assets: --kubectl: %w", err)
	}
	return abs, nil
}

// writeEnvtestAssets makes dir hold a copy of the executable self as
// assetsBinary, relative links to it named after the stand-ins, and, when
// kubectl is not "", a link to kubectl.
func writeEnvtestAssets(dir, self, kubectl string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	links := map[string]string{}
	for _, name := range standInNames {
		// Relative, so the directory may be moved or mounted elsewhere.
		links[name] = assetsBinary
	}
	if kubectl != "" {
		links[kubectlName] = kubectl
	}
	// Check every link first, so a refusal leaves dir as it was.
	for name := range links {
		if err := checkReplaceable(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	if err := copyExecutable(self, filepath.Join(dir, assetsBinary)); err != nil {
		return err
	}
	for name, target := range links {
		if err := replaceSymlink(target, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// checkReplaceable refuses a path that exists and is not a symbolic link:
// a real kube-apiserver, etcd or kubectl that lw-sim did not write.
func checkReplaceable(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink == 0:
		return fmt.Errorf("%s exists and was not written by lw-sim envtest-assets; use another directory or remove it", path)
	}
	return nil
}

// copyExecutable copies the executable src to dst (mode 0755) through a
// temporary file renamed over dst, so a process still running an older
// dst keeps its file and a reader never sees a partial one. Copying onto
// itself (dst is src, run from the directory) does nothing.
func copyExecutable(src, dst string) error {
	if a, err := os.Stat(src); err == nil {
		if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
			return nil
		}
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	err = errors.Join(err, tmp.Chmod(0o755), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return nil
}

// replaceSymlink makes path a symbolic link to target, replacing a link
// already there atomically (through a temporary link renamed over it).
func replaceSymlink(target, path string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".link")
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}
