// Package proxy runs the proxies a case puts on its hops, as a service
// mesh does: real proxies from the system's packages (HAProxy, nginx),
// configured for one leg each (L4 or L7, plain or mutual TLS), in the
// foreground, killed with the run. A proxy kind is one small contract, so
// another (Envoy, linkerd2-proxy) is a file away where it can be installed.
package proxy

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Mode is the layer a proxy works at: l4 relays TCP, l7 parses HTTP.
type Mode string

const (
	L4 Mode = "l4"
	L7 Mode = "l7"
)

// Kind is one proxy program: the configuration of a leg and how to run it
// in the foreground, as one process that dies with its parent.
type Kind interface {
	Name() string
	// Binary is the executable's path and Package the Debian package
	// that installs it (named when it is missing).
	Binary() string
	Package() string
	// Config is the configuration file of a proxy for l.
	Config(l Leg) string
	// Args run the binary in the foreground with the configuration at
	// path (l.Dir holds it and everything else the proxy writes).
	Args(path string, l Leg) []string
}

// Leg is one proxy's work: take connections on Listen and relay them to
// Upstream, at Mode (L7: speaking HTTP version HTTP both sides,
// transport.HTTP1 or transport.HTTP2).
type Leg struct {
	Mode             Mode
	HTTP             string
	Listen, Upstream string
	// Accept, when set, is TLS the proxy ends on its listener, requiring
	// a client certificate its CA signed (an inbound sidecar's); Originate
	// is TLS it opens to its upstream, presenting the client certificate
	// (an outbound sidecar's).
	Accept, Originate *TLSFiles
	// Dir holds the proxy's configuration, logs and temporary files.
	Dir string
}

// TLSFiles are a certificate's files: the CA that signed it and the peer,
// the certificate and its key apart, and both in one PEM (HAProxy's crt).
type TLSFiles struct{ CA, Cert, Key, PEM string }

var kinds = map[string]Kind{}

func register(k Kind) { kinds[k.Name()] = k }

// Kinds are the known proxy kinds' names, sorted.
func Kinds() []string {
	var out []string
	for n := range kinds {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Lookup returns the kind of that name.
func Lookup(name string) (Kind, error) {
	k, ok := kinds[name]
	if !ok {
		return nil, fmt.Errorf("proxy kind %q: unknown (known: %s; envoy and linkerd2-proxy have no Debian package here)", name, strings.Join(Kinds(), ", "))
	}
	return k, nil
}

// Installed says why the kind cannot run here; nil when its binary is
// there.
func Installed(k Kind) error {
	if _, err := os.Stat(k.Binary()); err != nil {
		return fmt.Errorf("proxy %s: %s is missing (install Debian's %s: scripts/setup.sh proxies)", k.Name(), k.Binary(), k.Package())
	}
	return nil
}

// Settings are the proxies of a case: which kind at which mode, one
// proxy a hop or two (an outbound sidecar beside the caller and an
// inbound one beside the callee, with mutual TLS between them when MTLS),
// on every inter-service hop or the hops named, and on the client's call
// too when Client.
type Settings struct {
	Kind     string `json:"kind" yaml:"kind"`
	Mode     Mode   `json:"mode" yaml:"mode"`
	Sidecars int    `json:"sidecars" yaml:"sidecars"`
	MTLS     bool   `json:"mtls,omitempty" yaml:"mtls"`
	Client   bool   `json:"client,omitempty" yaml:"client"`
	// Hops are the hops proxied, each named by the node it calls (1 is
	// node 0's call to node 1); none: every inter-service hop.
	Hops []int `json:"hops,omitempty" yaml:"hops"`
}

// String names the settings in a case: haproxy/l7/x2/mtls, then /client
// and /hops=1.2 when set.
func (s Settings) String() string {
	parts := []string{s.Kind, string(s.Mode), "x" + strconv.Itoa(s.Sidecars)}
	if s.MTLS {
		parts = append(parts, "mtls")
	}
	if s.Client {
		parts = append(parts, "client")
	}
	if len(s.Hops) > 0 {
		hops := make([]string, len(s.Hops))
		for i, h := range s.Hops {
			hops[i] = strconv.Itoa(h)
		}
		parts = append(parts, "hops="+strings.Join(hops, "."))
	}
	return strings.Join(parts, "/")
}

// OnHop says whether the call into node callee passes through proxies
// (callee 0: the client's call).
func (s Settings) OnHop(callee int) bool {
	if callee == 0 {
		return s.Client
	}
	return len(s.Hops) == 0 || slices.Contains(s.Hops, callee)
}
