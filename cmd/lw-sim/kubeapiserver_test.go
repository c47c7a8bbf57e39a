package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// writeServingCert writes apiserver.crt (the leaf alone) and
// apiserver.key into dir, signed by a fresh CA, as envtest does, and
// returns the CA's PEM.
func writeServingCert(t *testing.T, dir string) []byte {
	t.Helper()
	chain, key, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf, ca := pem.Decode(chain)
	if err := os.WriteFile(filepath.Join(dir, "apiserver.crt"), pem.EncodeToMemory(leaf), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "apiserver.key"), key, 0o640); err != nil {
		t.Fatal(err)
	}
	return ca
}

// writeClientCA writes client-cert-auth-ca.crt into dir, a fresh CA as
// envtest's CertAuthn makes it, and returns a client certificate and key
// it signed for CN user, O groups (envtest's AddUser).
func writeClientCA(t *testing.T, dir, user string, groups ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "client-cert-auth-ca"}, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})
	if err := os.WriteFile(filepath.Join(dir, "client-cert-auth-ca.crt"), caPEM, 0o640); err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: user, Organization: groups},
		NotBefore:    ca.NotBefore,
		NotAfter:     ca.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	if keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM
}

// envtestAPIServerArgs are the arguments envtest v0.25 starts
// kube-apiserver with (controlplane/apiserver.go defaultArgs and
// CertAuthn.Configure), for a server on port with certDir.
func envtestAPIServerArgs(certDir string, port int) []string {
	p := strconv.Itoa(port)
	return []string{
		"--advertise-address=127.0.0.1", "--allow-privileged=true", "--authorization-mode=RBAC",
		"--bind-address=127.0.0.1", "--cert-dir=" + certDir, "--client-ca-file=" + filepath.Join(certDir, "client-cert-auth-ca.crt"),
		"--disable-admission-plugins=ServiceAccount", "--etcd-servers=http://127.0.0.1:1", "--secure-port=" + p,
		"--service-account-issuer=https://127.0.0.1:" + p + "/", "--service-account-key-file=" + filepath.Join(certDir, "sa-signer.crt"),
		"--service-account-signing-key-file=" + filepath.Join(certDir, "sa-signer.key"), "--service-cluster-ip-range=10.0.0.0/24",
	}
}

// TestKubeAPIServerStandIn: started with envtest's arguments, the stand-in
// serves HTTPS with the certificate of --cert-dir (a client trusting its
// CA gets through), authenticates client certificates of --client-ca-file
// and authorizes with RBAC (envtest's admin, in system:masters, may do
// anything; a caller without credentials is forbidden), answers envtest's
// readiness poll, allocates cluster IPs from --service-cluster-ip-range,
// logs requests at -v 1, warns of the flags and modes it ignores, and
// stops cleanly when its context ends.
func TestKubeAPIServerStandIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := writeServingCert(t, dir)
	port := freePort(t)
	url := "https://127.0.0.1:" + strconv.Itoa(port)
	adminCert, adminKey := writeClientCA(t, dir, "admin", "system:masters")
	args := append([]string{"/assets/kube-apiserver"}, envtestAPIServerArgs(dir, port)...)
	args = append(args, "--v=1", "--max-requests-inflight=1000", "--feature-gates", "WatchList=true", "--authorization-mode=Node,RBAC")
	r := startStandIn(t, "lw-sim kube-apiserver: serving "+url+"\n", args...)

	anonymous := kubernetes.NewForConfigOrDie(&rest.Config{Host: url, TLSClientConfig: rest.TLSClientConfig{CAData: ca}})
	if _, err := anonymous.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("List(namespaces) without credentials = %v, want 403 Forbidden (system:anonymous under RBAC)", err)
	}
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: url, TLSClientConfig: rest.TLSClientConfig{
		CAData: ca, CertData: adminCert, KeyData: adminKey,
	}})
	// envtest's readiness poll (process.State.Start, pollURLUntilOK).
	if body, err := cs.Discovery().RESTClient().Get().AbsPath("/healthz").DoRaw(t.Context()); err != nil || string(body) != "ok" {
		t.Errorf("GET /healthz = %q, %v, want ok", body, err)
	}
	svc, err := cs.CoreV1().Services("default").Create(t.Context(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(service) = %v", err)
	}
	if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err != nil || !netip.MustParsePrefix("10.0.0.0/24").Contains(ip) {
		t.Errorf("service clusterIP = %q, want one in --service-cluster-ip-range 10.0.0.0/24", svc.Spec.ClusterIP)
	}
	if err := r.stop(); err != nil {
		t.Fatalf("run(kube-apiserver) after cancel = %v, want nil", err)
	}
	if out := r.stdout.String(); !strings.HasSuffix(out, "lw-sim kube-apiserver: stopped\n") {
		t.Errorf("kube-apiserver stdout = %q, want it to end with the stopped line", out)
	}
	stderr := r.stderr.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^lw-sim kube-apiserver: warning: ignoring flags it does not emulate: --max-requests-inflight=1000 --feature-gates WatchList=true$`),
		regexp.MustCompile(`(?m)^lw-sim kube-apiserver: warning: --authorization-mode: Node not emulated, ignored$`),
		regexp.MustCompile(`(?m)^time=\S+ level=DEBUG msg=request method=POST uri=/api/v1/namespaces/default/services status=201 duration=\S+$`),
	} {
		if !want.MatchString(stderr) {
			t.Errorf("kube-apiserver stderr lacks %s; got:\n%s", want, stderr)
		}
	}
}

// TestKubeAPIServerGeneratesCertificate: with no serving certificate in
// --cert-dir, the stand-in generates a self-signed one there and serves
// it, as kube-apiserver does.
func TestKubeAPIServerGeneratesCertificate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "certs") // missing: created
	port := freePort(t)
	url := "https://127.0.0.1:" + strconv.Itoa(port)
	r := startStandIn(t, "serving "+url, "kube-apiserver", "--cert-dir", dir, "--secure-port", strconv.Itoa(port))
	served, err := os.ReadFile(filepath.Join(dir, "apiserver.crt"))
	if err != nil {
		t.Fatalf("generated certificate: %v", err)
	}
	// The generated file is the certificate and its CA: trusting it is enough.
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: url, TLSClientConfig: rest.TLSClientConfig{CAData: served}})
	if _, err := cs.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Errorf("Get(namespace default) trusting the generated certificate = %v", err)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestKubeAPIServerFlagErrors: values kube-apiserver refuses are usage
// errors, with its messages where it has one.
func TestKubeAPIServerFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{args: []string{"--secure-port=0"}, want: "kube-apiserver: --secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0"},
		{args: []string{"--bind-address=nowhere"}, want: `kube-apiserver: invalid argument "nowhere" for "--bind-address" flag`},
		{args: []string{"--service-cluster-ip-range=10.0.0.0"}, want: `kube-apiserver: --service-cluster-ip-range "10.0.0.0": netip.ParsePrefix("10.0.0.0"): no '/'`},
		{args: []string{"--min-request-timeout=-1"}, want: "kube-apiserver: --min-request-timeout can not be negative value"},
		{args: []string{"extra"}, want: `kube-apiserver: takes no arguments, got ["extra"]`},
	}
	for _, tt := range tests {
		err := run(t.Context(), append([]string{"kube-apiserver"}, tt.args...), io.Discard, io.Discard)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.HasPrefix(ue.Error(), tt.want) {
			t.Errorf("run(kube-apiserver %q) = %v, want a usage error starting %q", tt.args, err, tt.want)
		}
	}
}
