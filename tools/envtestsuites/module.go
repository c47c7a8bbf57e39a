package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

const (
	// crModule is controller-runtime's module path.
	crModule = "sigs.k8s.io/controller-runtime"
	// preparedMarker, in a prepared copy, records that it is complete.
	preparedMarker = ".lw-sim-prepared"
)

// k8sLibraries are the k8s.io modules controller-runtime requires that
// lw-sim pins too; the copy is moved to lw-sim's version of them.
var k8sLibraries = []string{
	"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go", "k8s.io/apiserver",
	"k8s.io/apiextensions-apiserver", "k8s.io/component-base",
}

// prepareModule returns a writable copy of controller-runtime@version
// under work, with its k8s.io libraries at k8s. The module comes from the
// module cache (go mod download fetches it on first use); the copy is made
// once and reused.
func prepareModule(ctx context.Context, work, version, k8s string, log io.Writer) (string, error) {
	dir := filepath.Join(work, fmt.Sprintf("controller-runtime@%s-k8s@%s", version, k8s))
	if _, err := os.Stat(filepath.Join(dir, preparedMarker)); err == nil {
		return dir, nil
	}
	fmt.Fprintf(log, "envtestsuites: preparing %s@%s with k8s.io libraries %s in %s\n", crModule, version, k8s, dir)
	src, err := downloadModule(ctx, work, crModule+"@"+version)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := copyTree(src, dir); err != nil {
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	get := []string{"get"}
	for _, m := range k8sLibraries {
		get = append(get, m+"@"+k8s)
	}
	if _, err := goCommand(ctx, dir, get...); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, preparedMarker), nil, 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

// downloadModule fetches mod (path@version) into the module cache and
// returns its directory there.
func downloadModule(ctx context.Context, work, mod string) (string, error) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	out, err := goCommand(ctx, work, "mod", "download", "-json", mod)
	if err != nil {
		return "", err
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", mod, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	return info.Dir, nil
}

// goCommand runs the go command in dir (outside any workspace) and
// returns its stdout; a failure carries its stderr.
func goCommand(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GO111MODULE=on")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %v in %s: %w\n%s", args, dir, err, stderr.Bytes())
	}
	return out, nil
}

// copyTree copies the module tree src to dst, writable. Module zips keep
// no file modes, so the cache's files are all read-only and none is
// executable; a file starting with "#!" (the suites' fake kube-apiserver
// scripts under testdata) gets its executable bit back, as in
// controller-runtime's repository.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if bytes.HasPrefix(data, []byte("#!")) {
			mode = 0o755
		}
		return os.WriteFile(target, data, mode)
	})
}
