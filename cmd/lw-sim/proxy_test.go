package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// startProxy runs "lw-sim proxy" in front of a fake server started for
// the test, and returns the URL and the kubeconfig it wrote.
func startProxy(t *testing.T, flags ...string) (url, kubeconfig string) {
	t.Helper()
	up := fakeapiserver.Start(t, fakeapiserver.WithTLS(), fakeapiserver.WithToken("up-token"))
	dir := t.TempDir()
	upKubeconfig := filepath.Join(dir, "upstream")
	if err := up.WriteKubeconfig(upKubeconfig); err != nil {
		t.Fatal(err)
	}
	kubeconfig = filepath.Join(dir, "proxy")
	args := append([]string{"proxy", "--upstream-kubeconfig", upKubeconfig, "--listen", "127.0.0.1:0", "--kubeconfig", kubeconfig}, flags...)
	ctx, cancel := context.WithCancel(context.Background())
	stdout := newSyncBuffer()
	result := make(chan error, 1)
	returned, markReturned := context.WithCancelCause(context.Background())
	go func() {
		err := run(ctx, args, stdout, newSyncBuffer())
		markReturned(fmt.Errorf("run(proxy) returned early: %v", err))
		result <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-result; err != nil {
			t.Errorf("run(proxy) after cancel = %v, want nil", err)
		}
	})
	waitCtx, waitCancel := testdeadline.Derive(returned, t)
	defer waitCancel()
	stdout.waitFor(waitCtx, t, "lw-sim proxy: kubeconfig "+kubeconfig+"\n")
	out := stdout.String()
	url = strings.TrimSpace(strings.SplitN(strings.TrimPrefix(out, "lw-sim proxy: serving "), " ", 2)[0])
	return url, kubeconfig
}

func TestProxyCommand(t *testing.T) {
	t.Parallel()
	url, kubeconfig := startProxy(t, "--control")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	list := func() error {
		_, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
		return err
	}
	if err := list(); err != nil {
		t.Fatalf("List(namespaces) through the proxy = %v", err)
	}
	resp, err := http.Post(url+"/_lwsim/faults", "application/json", strings.NewReader(`{"kind":"FailRequest","code":500,"match":{"verbs":["list"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST fault = %d, want 201", resp.StatusCode)
	}
	if err := list(); !apierrors.IsInternalError(err) {
		t.Errorf("List(namespaces) with a 500 fault = %v, want the 500", err)
	}
	if err := list(); err != nil {
		t.Errorf("List(namespaces) after the fault = %v", err)
	}
	resp, err = http.Post(url+"/_lwsim/faults", "application/json", strings.NewReader(`{"kind":"Restart"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("POST Restart fault to the proxy = %d, want 501", resp.StatusCode)
	}
}

func TestProxyCommandNeedsUpstream(t *testing.T) {
	t.Parallel()
	err := run(t.Context(), []string{"proxy"}, newSyncBuffer(), newSyncBuffer())
	if !errors.As(err, new(*usageError)) {
		t.Errorf("run(proxy) without --upstream-kubeconfig = %v, want a usage error", err)
	}
}

// TestServeControlFlag checks that serve's control API is off by default
// and on with --control.
func TestServeControlFlag(t *testing.T) {
	t.Parallel()
	for flags, want := range map[string]int{"": http.StatusNotFound, "--control": http.StatusOK} {
		var args []string
		if flags != "" {
			args = append(args, flags)
		}
		sr := startServe(t, args...)
		resp, err := sr.httpClient(t).Get(sr.restConfig(t).Host + "/_lwsim/faults")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("serve %s: GET /_lwsim/faults = %d, want %d", flags, resp.StatusCode, want)
		}
	}
}
