package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

const (
	// kubeGitVersion is the release this server imitates. The "+lwsim" build
	// metadata says honestly what answers (as k3s says "v1.30.2+k3s1"), and
	// semver comparisons ignore it, so clients treat the server as v1.37.2.
	kubeGitVersion = "v1.37.2+lwsim"
	// kubeMajor and kubeMinor are the binary and emulation version of
	// kubeGitVersion.
	kubeMajor = "1"
	kubeMinor = "37"
	// kubeMinCompatibilityMinor is one minor below kubeMinor, as
	// kube-apiserver's default --min-compatibility-version is.
	kubeMinCompatibilityMinor = "36"
)

// errShuttingDown fails the readyz "shutdown" check once Close has begun.
var errShuttingDown = errors.New("process is shutting down")

// healthCheck is one named check of a health endpoint.
type healthCheck struct {
	name  string
	check func() error
}

// serveNonResource answers the endpoints outside /api and /apis that
// clients use: /version, /healthz, /livez, /readyz (and their per-check
// subpaths such as /healthz/ping), /openapi/v2 and /openapi/v3[/<path>]
// (internal/openapi). It returns false, writing nothing, for any other
// path.
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request) bool {
	parts := splitPath(r.URL.Path)
	if len(parts) == 0 {
		return false
	}
	switch parts[0] {
	case "version":
		if len(parts) != 1 {
			return false
		}
		s.serveVersion(w, r)
		return true
	case "healthz", "livez", "readyz":
		// The mux matches the exact paths /<endpoint> and
		// /<endpoint>/<check>: "/healthz/" and "/healthz/ping/" are 404.
		rest, _ := strings.CutPrefix(r.URL.Path, "/"+parts[0])
		if rest == "/" {
			http.NotFound(w, r)
			return true
		}
		return s.serveHealth(w, r, parts[0], strings.TrimPrefix(rest, "/"))
	case "openapi":
		return s.openapi.Serve(w, r)
	}
	return false
}

// serveVersion answers /version with the version.Info of kubeGitVersion,
// indented as apiserver's responsewriters.WriteRawJSON writes it.
func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.writeError(w, r, nonResourceMethodNotAllowed())
		return
	}
	body, err := json.MarshalIndent(versionInfo(), "", "  ")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// versionInfo describes this server as kube-apiserver v1.37.2 built from
// the lw-sim binary: commit and build date come from the binary's VCS
// stamp when it has one, the Go fields from the runtime.
func versionInfo() version.Info {
	info := version.Info{
		Major: kubeMajor, Minor: kubeMinor,
		EmulationMajor: kubeMajor, EmulationMinor: kubeMinor,
		MinCompatibilityMajor: kubeMajor, MinCompatibilityMinor: kubeMinCompatibilityMinor,
		GitVersion: kubeGitVersion,
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				info.GitCommit = kv.Value
			case "vcs.time":
				info.BuildDate = kv.Value
			case "vcs.modified":
				info.GitTreeState = "clean"
				if kv.Value == "true" {
					info.GitTreeState = "dirty"
				}
			}
		}
	}
	return info
}

// healthChecks are the checks of one health endpoint, named and ordered as
// kube-apiserver's (health_checks.go). The store is in memory and every
// post-start hook has run by the time New returns, so all pass but one:
// readyz fails "shutdown" once Close has begun, as kube-apiserver's readyz
// does during graceful termination.
func (s *Server) healthChecks(endpoint string) []healthCheck {
	ok := func() error { return nil }
	names := healthCheckNames(endpoint)
	checks := make([]healthCheck, len(names))
	for i, name := range names {
		checks[i] = healthCheck{name, ok}
	}
	if endpoint == "readyz" {
		checks[len(checks)-1].check = func() error {
			if s.stopCtx.Err() != nil {
				return errShuttingDown
			}
			return nil
		}
	}
	return checks
}

// serveHealth answers /<endpoint> and /<endpoint>/<check> as apiserver's
// pkg/server/healthz does (healthz.go handleRootHealth, adaptCheckToHandler):
// "ok", or with ?verbose one line per check; a failing check makes it a
// 500 listing the failure with its reason withheld. ?exclude=<check>
// skips a check; excluded names that match none are listed in a warning
// line. An unknown check's path is the mux's plain-text 404.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, endpoint, check string) bool {
	checks := s.healthChecks(endpoint)
	if check != "" {
		i := slices.IndexFunc(checks, func(c healthCheck) bool { return c.name == check })
		if i < 0 {
			http.NotFound(w, r)
			return true
		}
		if err := checks[i].check(); err != nil {
			http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
			return true
		}
		_, _ = fmt.Fprint(w, "ok")
		return true
	}
	out, failed := runHealthChecks(checks, r.URL.Query()["exclude"])
	if failed {
		http.Error(w, fmt.Sprintf("%s%s check failed", out.String(), endpoint), http.StatusInternalServerError)
		return true
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if _, verbose := r.URL.Query()["verbose"]; !verbose {
		_, _ = fmt.Fprint(w, "ok")
		return true
	}
	_, _ = out.WriteTo(w)
	_, _ = fmt.Fprintf(w, "%s check passed\n", endpoint)
	return true
}

// runHealthChecks runs checks but the excluded ones and returns the
// verbose lines, the warning about excluded names that match no check
// last, and whether a check failed.
func runHealthChecks(checks []healthCheck, excluded []string) (bytes.Buffer, bool) {
	var out bytes.Buffer
	unknown := map[string]bool{}
	for _, name := range excluded {
		unknown[name] = true
	}
	failed := false
	for _, c := range checks {
		switch {
		case slices.Contains(excluded, c.name):
			delete(unknown, c.name)
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.name)
		case c.check() != nil:
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.name)
			failed = true
		default:
			fmt.Fprintf(&out, "[+]%s ok\n", c.name)
		}
	}
	if len(unknown) > 0 {
		names := slices.Sorted(maps.Keys(unknown))
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = strconv.Quote(n)
		}
		// formatQuoted's list of the names no check matched.
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(quoted, ","))
	}
	return out, failed
}

// nonResourceMethodNotAllowed is the 405 go-restful gives a method a
// discovery or /version route does not have.
func nonResourceMethodNotAllowed() error {
	return apierrors.NewGenericServerResponse(http.StatusMethodNotAllowed, "", schema.GroupResource{}, "", "405: Method Not Allowed", 0, false)
}
