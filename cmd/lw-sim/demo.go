package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

const (
	// demoNamespace is the default --namespace, one of the namespaces
	// every server starts with.
	demoNamespace = "default"
	// demoTimeout bounds the whole demo, a guard against a stuck server or
	// watch: the demo takes milliseconds on a quiet machine and seconds on
	// a loaded one, which a tight budget would fail (issue 21).
	demoTimeout = 10 * time.Minute
	// demoListen is a free loopback port: the demo serves only itself.
	demoListen = "127.0.0.1:0"
	// maxDemoEvents bounds the events report reads; the changes cause
	// four, so more means the server sent events it should not have.
	maxDemoEvents = 10
)

func newDemoCommand() *cobra.Command {
	namespace := demoNamespace
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show List & Watch against a fake kube-apiserver started in this process",
		Long: `Show List & Watch against a fake kube-apiserver started in this process:
create three pods, LIST them, change one, WATCH from the list's
resourceVersion, change two more, and print what the watcher saw.`,
		Example: `  lw-sim demo
  lw-sim demo -n kube-public`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), namespace, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVarP(&namespace, "namespace", "n", demoNamespace,
		"`namespace` to create the pods in: one the server starts with (default,\n"+
			"kube-system, kube-public, kube-node-lease)")
	return cmd
}

// runDemo is "lw-sim demo". It serves a default server on a free loopback
// port for as long as the demo runs.
func runDemo(ctx context.Context, namespace string, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, demoTimeout)
	defer cancel()
	srv, err := fakeapiserver.New(fakeapiserver.Config{})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", demoListen)
	if err != nil {
		return errors.Join(fmt.Errorf("demo: %w", err), srv.Close())
	}
	// Shutdown chain: Close ends the watch and the HTTP server → the
	// ServeBackground goroutine delivers Serve's result on done.
	done := srv.ServeBackground(ln)
	fmt.Fprintf(stdout, "lw-sim demo: a fake kube-apiserver is serving at %s, in this process\n\n", srv.URL())
	err = demo(ctx, srv.Clientset(), namespace, stdout)
	closeErr := srv.Close()
	return errors.Join(err, closeErr, <-done)
}

// demo runs the narrated List & Watch against cs and writes the narration
// to out.
func demo(ctx context.Context, cs kubernetes.Interface, namespace string, out io.Writer) error {
	d := &demoRun{pods: cs.CoreV1().Pods(namespace), namespace: namespace, out: out}
	steps := []func(context.Context) error{d.seed, d.list, d.changeBeforeWatch, d.watch, d.changeDuringWatch, d.report}
	defer d.stopWatch()
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

// demoRun is the state the demo's steps hand on to each other.
type demoRun struct {
	pods      corev1client.PodInterface
	namespace string
	out       io.Writer

	listRV  string          // resourceVersion of the LIST
	watcher watch.Interface // the WATCH from listRV; nil before step 4
}

func (d *demoRun) seed(ctx context.Context) error {
	names := []string{"web-1", "web-2", "web-3"}
	for _, name := range names {
		if err := d.create(ctx, name); err != nil {
			return err
		}
	}
	d.printf("1. create pods %s in namespace %q\n", strings.Join(names, ", "), d.namespace)
	return nil
}

func (d *demoRun) list(ctx context.Context) error {
	list, err := d.pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	d.listRV = list.ResourceVersion
	d.printf("2. LIST pods: %d items at resourceVersion %s\n", len(list.Items), d.listRV)
	return nil
}

func (d *demoRun) changeBeforeWatch(ctx context.Context) error {
	pod, err := d.pods.Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get pod web-1: %w", err)
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["demo"] = "changed"
	// Update sends the resourceVersion we read: had anyone written web-1
	// since, the server would answer 409 Conflict.
	if _, err := d.pods.Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update pod web-1: %w", err)
	}
	d.printf("3. update web-1 (label demo=changed), after the LIST and before any WATCH\n")
	return nil
}

func (d *demoRun) watch(ctx context.Context) error {
	w, err := d.pods.Watch(ctx, metav1.ListOptions{ResourceVersion: d.listRV})
	if err != nil {
		return fmt.Errorf("watch pods from resourceVersion %s: %w", d.listRV, err)
	}
	d.watcher = w
	d.printf("4. WATCH pods from resourceVersion %s\n", d.listRV)
	return nil
}

func (d *demoRun) changeDuringWatch(ctx context.Context) error {
	if err := d.pods.Delete(ctx, "web-2", metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete pod web-2: %w", err)
	}
	if err := d.create(ctx, "web-4"); err != nil {
		return err
	}
	d.printf("5. delete web-2, create web-4\n")
	return nil
}

// report prints the watch events up to the one for the last change
// (web-4 ADDED). A pod delete shows as two events, as on a real server: a
// MODIFIED that sets deletionTimestamp, then the DELETED (pod strategy
// CheckGracefulDeletion with an unscheduled pod; registry/generic/registry
// store.go, updateForGracefulDeletionAndFinalizers).
func (d *demoRun) report(ctx context.Context) error {
	d.printf("\nwhat the watcher saw:\n")
	for n := 0; ; n++ {
		if n == maxDemoEvents {
			return fmt.Errorf("no ADDED event for web-4 within %d watch events", maxDemoEvents)
		}
		ev, err := nextEvent(ctx, d.watcher)
		if err != nil {
			return err
		}
		d.printf("   %-9s %-6s resourceVersion %s%s\n", ev.typ, ev.name, ev.rv, ev.note)
		if ev.typ == watch.Added && ev.name == "web-4" {
			break
		}
	}
	d.printf("\nEvery change after the LIST arrived once and in order, even the one made before\n" +
		"the WATCH began: watching from the list's resourceVersion is what lets\n" +
		"LIST + WATCH miss nothing.\n")
	return nil
}

func (d *demoRun) stopWatch() {
	if d.watcher != nil {
		d.watcher.Stop()
	}
}

func (d *demoRun) create(ctx context.Context, name string) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
	if _, err := d.pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create pod %s: %w", name, err)
	}
	return nil
}

func (d *demoRun) printf(format string, args ...any) {
	fmt.Fprintf(d.out, format, args...)
}

// podEvent is what the narration shows of a watch event.
type podEvent struct {
	typ  watch.EventType
	name string
	rv   string
	note string // explains an event a reader might not expect, or ""
}

// nextEvent returns the next pod event of w, skipping bookmarks. An ERROR
// event becomes its Status error; a closed watch or ctx ending is an error.
func nextEvent(ctx context.Context, w watch.Interface) (podEvent, error) {
	for {
		select {
		case <-ctx.Done():
			return podEvent{}, fmt.Errorf("waiting for a watch event: %w", context.Cause(ctx))
		case ev, ok := <-w.ResultChan():
			if !ok {
				return podEvent{}, errors.New("watch closed before every change arrived")
			}
			switch ev.Type {
			case watch.Bookmark:
				continue
			case watch.Error:
				return podEvent{}, fmt.Errorf("watch: %w", apierrors.FromObject(ev.Object))
			}
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok {
				return podEvent{}, fmt.Errorf("watch %s event carries %T, want *v1.Pod", ev.Type, ev.Object)
			}
			pe := podEvent{typ: ev.Type, name: pod.Name, rv: pod.ResourceVersion}
			if ev.Type == watch.Modified && pod.DeletionTimestamp != nil {
				pe.note = "  (deletionTimestamp set: the delete begins)"
			}
			return pe, nil
		}
	}
}
