package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

const (
	// kubeAPIServerName is the program "lw-sim kube-apiserver" stands in
	// for, and its command's name.
	kubeAPIServerName = "kube-apiserver"
	// defaultCertDir and defaultSecurePort are kube-apiserver's defaults
	// (apiserver pkg/server/options/serving.go; cmd/kube-apiserver
	// app/options NewServerRunOptions).
	defaultCertDir    = "/var/run/kubernetes"
	defaultSecurePort = 6443
	// servingPairName names the serving certificate and key kube-apiserver
	// reads from (or generates into) --cert-dir: apiserver.crt and
	// apiserver.key (controlplane/apiserver/options ServerCert.PairName).
	servingPairName = "apiserver"
	// defaultMinRequestTimeout is kube-apiserver's --min-request-timeout
	// default, in seconds (apiserver pkg/server/options
	// server_run_options.go).
	defaultMinRequestTimeout = 1800
	// defaultServiceIPRange is kube-apiserver's service CIDR when
	// --service-cluster-ip-range is not given (kubernetes
	// pkg/kubeapiserver/options/options.go DefaultServiceIPCIDR).
	defaultServiceIPRange = "10.0.0.0/24"
)

// kubeAPIServerOptions are kube-apiserver's flags that lw-sim kube-apiserver
// reads. Those that configure something the fake does not have (etcd,
// admission plugins, service-account keys) are accepted and documented as
// such, so envtest's command line parses without a warning.
type kubeAPIServerOptions struct {
	bindAddress       net.IP
	securePort        int
	certDir           string
	tlsCertFile       string
	tlsKeyFile        string
	clientCAFile      string
	authorizationMode []string
	serviceIPRange    string
	minRequestTimeout int
	verbosity         int
	saIssuers         []string
	// accepted only: parsed so envtest's flags are known, never read.
	advertiseAddress, serviceAccountKeyFile, serviceAccountSigningKeyFile string
	etcdServers, enableAdmission, disableAdmission                        []string
	allowPrivileged                                                       bool
}

func newKubeAPIServerCommand() *cobra.Command {
	var o kubeAPIServerOptions
	cmd := &cobra.Command{
		Use:    kubeAPIServerName + " [flags]",
		Short:  "Stand in for kube-apiserver under envtest: lw-sim's fake API server on its flags",
		Hidden: true, // reached as DIR/kube-apiserver (lw-sim envtest-assets)
		Long: `Serve lw-sim's in-memory fake API server as kube-apiserver would be
started: HTTPS on --bind-address:--secure-port with the serving certificate
of --tls-cert-file/--tls-private-key-file, or else apiserver.crt and
apiserver.key in --cert-dir (generated there, self-signed, when missing, as
kube-apiserver does), until SIGINT or SIGTERM.

lw-sim envtest-assets writes this program as DIR/kube-apiserver; run under
that name, lw-sim is this command. It keeps every object in its own memory:
--etcd-servers is accepted and never contacted (DIR/etcd stores nothing).

Client certificates signed by --client-ca-file are authenticated (CN the
user, O the groups, as envtest's AddUser makes them), --authorization-mode
RBAC authorizes as kube-apiserver's RBAC authorizer over its bootstrap
policy (other modes in the list, such as Node, are ignored with a warning),
and service-account tokens name --service-account-issuer; they are signed
with a key of the server's own, not --service-account-signing-key-file.

Any other kube-apiserver flag is accepted with a warning on stderr and
ignored, so a suite that configures more flags still starts.`,
		Example: `  lw-sim kube-apiserver --secure-port 6443 --cert-dir /tmp/certs -v 1`,
	}
	f := cmd.Flags()
	f.IPVar(&o.bindAddress, "bind-address", net.ParseIP(loopbackHost),
		"the `IP` address to listen on for --secure-port. Unlike kube-apiserver\n"+
			"(0.0.0.0), loopback unless another address is named")
	f.IntVar(&o.securePort, "secure-port", defaultSecurePort, "the `port` to serve HTTPS on (1 to 65535)")
	f.StringVar(&o.certDir, "cert-dir", defaultCertDir,
		"`directory` of the serving certificate and key, apiserver.crt and apiserver.key;\n"+
			"a self-signed pair is generated there when they are missing. Ignored when\n"+
			"--tls-cert-file and --tls-private-key-file are given")
	f.StringVar(&o.tlsCertFile, "tls-cert-file", "", "PEM `file` of the serving certificate (its CA, if any, concatenated after it)")
	f.StringVar(&o.tlsKeyFile, "tls-private-key-file", "", "PEM `file` of the private key of --tls-cert-file")
	f.StringVar(&o.clientCAFile, "client-ca-file", "",
		"PEM `file` of the CAs whose client certificates authenticate their CN as the\n"+
			"user and O values as the groups")
	f.StringSliceVar(&o.authorizationMode, "authorization-mode", []string{"AlwaysAllow"},
		"authorizer `modes`, in order: RBAC authorizes with the stored roles and bindings,\n"+
			"AlwaysAllow allows every authenticated request; others (Node, Webhook, ...) are\n"+
			"ignored with a warning")
	f.StringVar(&o.serviceIPRange, "service-cluster-ip-range", defaultServiceIPRange,
		"`CIDR` Services' cluster IPs are allocated from; of a dual-stack pair, the first")
	f.IntVar(&o.minRequestTimeout, "min-request-timeout", defaultMinRequestTimeout,
		"a watch without timeoutSeconds lasts this many `seconds` times a random factor in [1, 2)")
	f.StringVar(&o.advertiseAddress, "advertise-address", "", "the `IP` address advertised to the cluster (accepted)")
	f.StringSliceVar(&o.etcdServers, "etcd-servers", nil, "etcd `URLs` (accepted; never contacted: objects are kept in memory)")
	f.BoolVar(&o.allowPrivileged, "allow-privileged", false, "allow privileged containers (accepted; the fake runs no containers)")
	f.StringSliceVar(&o.enableAdmission, "enable-admission-plugins", nil, "admission `plugins` to enable (accepted)")
	f.StringSliceVar(&o.disableAdmission, "disable-admission-plugins", nil, "admission `plugins` to disable (accepted)")
	f.StringArrayVar(&o.saIssuers, "service-account-issuer", nil,
		"the `issuer` of the service-account tokens the server mints (the first given) and\n"+
			"its API audience")
	f.StringVar(&o.serviceAccountKeyFile, "service-account-key-file", "", "`file` of service account token verification keys (accepted)")
	f.StringVar(&o.serviceAccountSigningKeyFile, "service-account-signing-key-file", "", "`file` of the service account token signing key (accepted)")
	addVerbosityFlag(cmd, &o.verbosity)
	return newStandInCommand(cmd, func(cmd *cobra.Command) error { return runKubeAPIServer(cmd, o) })
}

// runKubeAPIServer serves the fake on kube-apiserver's flags until the
// command's context ends.
func runKubeAPIServer(cmd *cobra.Command, o kubeAPIServerOptions) error {
	cfg, addr, err := o.config(cmd)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	if !isLoopback(addr) {
		fmt.Fprintf(stderr, "lw-sim %s: warning: listening on %s, beyond loopback; anyone who can reach it can read and write\n", kubeAPIServerName, addr)
	}
	cfg.Logger = newLogger(stderr, o.verbosity)
	srv, err := fakeapiserver.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Join(fmt.Errorf("%s: %w", kubeAPIServerName, err), srv.Close())
	}
	return serveUntilDone(cmd.Context(), srv, ln, announcement{name: kubeAPIServerName}, cmd.OutOrStdout())
}

// config maps the flags onto a fakeapiserver.Config and the address to
// listen on; a flag value kube-apiserver would refuse is a usage error.
func (o kubeAPIServerOptions) config(cmd *cobra.Command) (fakeapiserver.Config, string, error) {
	var cfg fakeapiserver.Config
	bind := o.bindAddress
	if o.securePort < 1 || o.securePort > 65535 {
		// kube-apiserver's own message (apiserver
		// pkg/server/options/serving.go Validate, Required).
		return cfg, "", usagef(cmd, "--secure-port %v must be between 1 and 65535, inclusive. It cannot be turned off with 0", o.securePort)
	}
	addr := net.JoinHostPort(bind.String(), strconv.Itoa(o.securePort))
	cfg.AllowedHosts = []string{bind.String()}
	var err error
	if cfg.ServiceClusterIPRange, err = o.serviceRange(cmd); err != nil {
		return cfg, "", err
	}
	switch {
	case o.minRequestTimeout < 0:
		// kube-apiserver's own message (server_run_options.go Validate).
		return cfg, "", usagef(cmd, "--min-request-timeout can not be negative value")
	case o.minRequestTimeout == 0:
		// kube-apiserver then gives watches no default timeout; the
		// fake's Config reads 0 as "the default".
		return cfg, "", usagef(cmd, "--min-request-timeout 0 (watches without a default timeout) is not emulated")
	}
	cfg.MinRequestTimeout = time.Duration(o.minRequestTimeout) * time.Second
	cfg.TLS = &fakeapiserver.ServingTLS{}
	if cfg.TLS.CertFile, cfg.TLS.KeyFile, err = o.servingCertificate(bind); err != nil {
		return cfg, "", err
	}
	if err := o.auth(cmd, &cfg); err != nil {
		return cfg, "", err
	}
	return cfg, addr, nil
}

// auth maps the authentication and authorization flags onto cfg:
// --client-ca-file's CAs, the first --service-account-issuer, and the
// authorizer of --authorization-mode. kube-apiserver chains the modes
// (Node,RBAC is a cluster's usual list); the fake has one authorizer, so
// RBAC anywhere in the list is RBAC, AlwaysAllow alone is AlwaysAllow, and
// the modes it does not have are named in a warning.
func (o kubeAPIServerOptions) auth(cmd *cobra.Command, cfg *fakeapiserver.Config) error {
	if o.clientCAFile != "" {
		pool, err := cert.NewPool(o.clientCAFile)
		if err != nil {
			return fmt.Errorf("%s: --client-ca-file: %w", kubeAPIServerName, err)
		}
		cfg.ClientCA = pool
	}
	if len(o.saIssuers) > 0 {
		cfg.ServiceAccountIssuer = o.saIssuers[0]
	}
	cfg.Authorization = fakeapiserver.AuthorizationAlwaysAllow
	var ignored []string
	for _, m := range o.authorizationMode {
		switch mode := fakeapiserver.AuthorizationMode(strings.TrimSpace(m)); mode {
		case fakeapiserver.AuthorizationRBAC:
			cfg.Authorization = mode
		case fakeapiserver.AuthorizationAlwaysAllow:
		default:
			ignored = append(ignored, m)
		}
	}
	if len(ignored) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "lw-sim %s: warning: --authorization-mode: %s not emulated, ignored\n", kubeAPIServerName, strings.Join(ignored, ","))
	}
	return nil
}

// serviceRange parses --service-cluster-ip-range; of a dual-stack pair
// only the first range is used (the fake allocates single-stack), with a
// warning.
func (o kubeAPIServerOptions) serviceRange(cmd *cobra.Command) (netip.Prefix, error) {
	first, second, dual := strings.Cut(o.serviceIPRange, ",")
	p, err := netip.ParsePrefix(strings.TrimSpace(first))
	if err != nil {
		return netip.Prefix{}, usagef(cmd, "--service-cluster-ip-range %q: %v", o.serviceIPRange, err)
	}
	if dual {
		fmt.Fprintf(cmd.ErrOrStderr(), "lw-sim %s: warning: --service-cluster-ip-range: single-stack only; ignoring %s\n", kubeAPIServerName, second)
	}
	return p.Masked(), nil
}

// servingCertificate returns the serving certificate and key files as
// kube-apiserver picks them (apiserver pkg/server/options/serving.go
// MaybeDefaultWithSelfSignedCerts): --tls-cert-file and
// --tls-private-key-file when either is given; else apiserver.crt and
// apiserver.key in --cert-dir, which are generated there, self-signed for
// localhost and the bind address, when they cannot both be read.
func (o kubeAPIServerOptions) servingCertificate(bind net.IP) (certFile, keyFile string, err error) {
	if o.tlsCertFile != "" || o.tlsKeyFile != "" {
		return o.tlsCertFile, o.tlsKeyFile, nil
	}
	certFile = filepath.Join(o.certDir, servingPairName+".crt")
	keyFile = filepath.Join(o.certDir, servingPairName+".key")
	if canRead, err := cert.CanReadCertAndKey(certFile, keyFile); err != nil || canRead {
		return certFile, keyFile, err
	}
	var ips []net.IP
	var names []string
	if bind.IsUnspecified() {
		names = append(names, "localhost")
	} else {
		ips = append(ips, bind)
	}
	// kube-apiserver names its public (advertised) address first.
	host := o.advertiseAddress
	if host == "" {
		host = "localhost"
	}
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey(host, ips, names)
	if err != nil {
		return "", "", fmt.Errorf("%s: generate a self-signed certificate: %w", kubeAPIServerName, err)
	}
	if err := cert.WriteCert(certFile, certPEM); err != nil {
		return "", "", fmt.Errorf("%s: %w", kubeAPIServerName, err)
	}
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return "", "", fmt.Errorf("%s: %w", kubeAPIServerName, err)
	}
	return certFile, keyFile, nil
}
