package realapiserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	apitesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// compactRevKey is the etcd key the apiserver's compactor uses to coordinate
// compactions (k8s.io/apiserver/pkg/storage/etcd3/compact.go). The apiserver
// watches it to learn the compacted revision.
const compactRevKey = "compact_rev_key"

func TestServe(t *testing.T) {
	dir := os.Getenv("REALAPISERVER_DIR")
	if dir == "" {
		t.Skip("REALAPISERVER_DIR not set; this test is the realapiserver program, see doc.go")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ready", "kubeconfig", "control-url"} {
		os.Remove(filepath.Join(dir, f))
	}

	start := time.Now()
	etcdClient := testserver.RunEtcd(t, nil)
	storageConfig := storagebackend.NewDefaultConfig(path.Join("/lwsim", "registry"), nil)
	storageConfig.Transport.ServerList = etcdClient.Endpoints()
	t.Logf("etcd up at %v after %v", etcdClient.Endpoints(), time.Since(start))

	clientCA, err := writeClientCA(dir)
	if err != nil {
		t.Fatalf("client CA: %v", err)
	}
	api := &apiServer{t: t, storage: storageConfig, kubeconfig: filepath.Join(dir, "kubeconfig"), clientCAFile: clientCA}
	if err := api.start(); err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	defer api.stop()
	t.Logf("kube-apiserver up after %v", time.Since(start))

	quit := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /compact", func(w http.ResponseWriter, r *http.Request) {
		rv, err := strconv.ParseInt(r.URL.Query().Get("rv"), 10, 64)
		if err != nil || rv <= 0 {
			http.Error(w, "rv must be a positive integer", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 90*time.Second)
		defer cancel()
		if err := compact(ctx, etcdClient.Client, api.clientset(), rv); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("POST /restart", func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		if err := api.restart(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		t.Logf("kube-apiserver restarted in %v", time.Since(t0))
		fmt.Fprintln(w, "ok")
	})
	// kube-controller-manager's controllers, one case at a time
	// (controllers.go).
	var ctrls controllers
	defer ctrls.stopAll()
	mux.HandleFunc("POST /controllers/start", func(w http.ResponseWriter, r *http.Request) {
		if err := ctrls.start(r.URL.Query().Get("name"), api.restConfig()); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("POST /controllers/stop", func(w http.ResponseWriter, r *http.Request) {
		ctrls.stop(r.URL.Query().Get("name"))
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("POST /quit", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "bye")
		select {
		case quit <- struct{}{}:
		default:
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	defer hs.Close()
	if err := os.WriteFile(filepath.Join(dir, "control-url"), []byte("http://"+ln.Addr().String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("ready after %v; kubeconfig in %s", time.Since(start), dir)

	stdinClosed := make(chan struct{})
	if os.Getenv("REALAPISERVER_WATCH_STDIN") != "" {
		go func() { io.Copy(io.Discard, os.Stdin); close(stdinClosed) }()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-quit:
	case <-stdinClosed:
	case s := <-sig:
		t.Logf("got %v", s)
	}
	t.Logf("shutting down")
}

// compact compacts etcd at rev the way the apiserver's own compactor does
// (etcd3.Compact): bump compact_rev_key with a CAS on its version, then
// compact. The apiserver's etcd compactor watches compact_rev_key, and the
// watch cache's compactor polls the store's compact revision every 15s; we
// then wait until an Exact ConfigMap LIST at rev-1 fails with 410 Gone. The
// watch cache serves such a LIST from its snapshots as long as it keeps one
// at or below rev-1, and only its compactor removes them, so the 410 (from
// etcd, to which the LIST is then delegated) proves the cache has noticed.
// That is the wait Kubernetes' own tests do by polling (test/integration/
// apiserver TestListOptions compacts before starting the server instead).
func compact(ctx context.Context, c *clientv3.Client, cs *kubernetes.Clientset, rev int64) error {
	get, err := c.Get(ctx, compactRevKey)
	if err != nil {
		return err
	}
	var version int64
	if len(get.Kvs) > 0 {
		version = get.Kvs[0].Version
	}
	txn, err := c.Txn(ctx).If(
		clientv3.Compare(clientv3.Version(compactRevKey), "=", version),
	).Then(
		clientv3.OpPut(compactRevKey, strconv.FormatInt(rev, 10)),
	).Commit()
	if err != nil {
		return fmt.Errorf("update %s: %w", compactRevKey, err)
	}
	if !txn.Succeeded {
		return fmt.Errorf("concurrent compaction in progress")
	}
	if _, err := c.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return fmt.Errorf("etcd compact: %w", err)
	}
	probe := strconv.FormatInt(rev-1, 10)
	for {
		_, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{
			ResourceVersion:      probe,
			ResourceVersionMatch: metav1.ResourceVersionMatchExact,
		})
		if err != nil && isGone(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("apiserver did not notice compaction at %d: last err %v", rev, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func isGone(err error) bool {
	type statusErr interface{ Status() metav1.Status }
	if se, ok := err.(statusErr); ok {
		return se.Status().Code == http.StatusGone
	}
	return false
}

// apiServer is the kube-apiserver over the one etcd; restart replaces it by
// a new instance on the same storage (a new port, CA and token: the
// kubeconfig is rewritten, and clients must reload it).
type apiServer struct {
	t            *testing.T
	storage      *storagebackend.Config
	kubeconfig   string
	clientCAFile string // --client-ca-file (client_ca.go)

	// mu guards the fields below.
	mu     sync.Mutex
	server *apitesting.TestServer
	cs     *kubernetes.Clientset
}

func (a *apiServer) start() error {
	flags := []string{
		"--endpoint-reconciler-type=none",
		"--disable-admission-plugins=ServiceAccount",
		// RBAC, as a real cluster runs (kubeadm's Node,RBAC without the
		// node authorizer, which needs nodes). The test server's default,
		// AlwaysAllow, turns anonymous authentication off, so /healthz,
		// /livez, /readyz and /version would not answer anonymous callers
		// as a cluster's system:public-info-viewer role lets them.
		"--authorization-mode=RBAC",
		// Client certificates of the CA in REALAPISERVER_DIR, as envtest's
		// AddUser makes them (CN user, O groups): conformance cases
		// authenticate with them (client_ca.go).
		"--client-ca-file=" + a.clientCAFile,
	}
	opts := apitesting.NewDefaultTestServerOptions()
	opts.DisableInvariantChecks = true
	server, err := apitesting.StartTestServer(a.t, opts, flags, a.storage)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(server.ClientConfig)
	if err != nil {
		server.TearDownFn()
		return err
	}
	// Write to a temporary file and rename, so a reader never sees half a
	// kubeconfig.
	tmp := a.kubeconfig + ".tmp"
	if err := writeKubeconfig(tmp, server.ClientConfig); err != nil {
		server.TearDownFn()
		return err
	}
	if err := os.Rename(tmp, a.kubeconfig); err != nil {
		server.TearDownFn()
		return err
	}
	a.mu.Lock()
	a.server, a.cs = &server, cs
	a.mu.Unlock()
	return nil
}

func (a *apiServer) stop() {
	a.mu.Lock()
	s := a.server
	a.server = nil
	a.mu.Unlock()
	if s != nil {
		s.TearDownFn()
	}
}

// restart stops the apiserver and starts a new one over the same etcd: its
// watch caches start empty at etcd's current revision, so watches from
// older RVs get the "too old resource version" ERROR event (k8s.io/apiserver
// pkg/storage/cacher/watch_cache_history.go GetIntervalLocked; observed on v1.37.2).
func (a *apiServer) restart() error {
	a.stop()
	return a.start()
}

// restConfig is the admin config of the running kube-apiserver.
func (a *apiServer) restConfig() *rest.Config {
	a.mu.Lock()
	defer a.mu.Unlock()
	return rest.CopyConfig(a.server.ClientConfig)
}

func (a *apiServer) clientset() *kubernetes.Clientset {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cs
}

func writeKubeconfig(file string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["realapiserver"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.TLSClientConfig.CAData,
		InsecureSkipTLSVerify:    cfg.TLSClientConfig.Insecure,
		TLSServerName:            cfg.TLSClientConfig.ServerName,
	}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		Token:                 cfg.BearerToken,
		ClientCertificateData: cfg.TLSClientConfig.CertData,
		ClientKeyData:         cfg.TLSClientConfig.KeyData,
	}
	kc.Contexts["realapiserver"] = &clientcmdapi.Context{Cluster: "realapiserver", AuthInfo: "admin"}
	kc.CurrentContext = "realapiserver"
	return clientcmd.WriteToFile(*kc, file)
}
