package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/broker"
)

type agentFlags struct {
	listen, advertise, name string
	tlsDir, tokenFile       string
}

func newAgentCommand(a *app) *cobra.Command {
	f := agentFlags{}
	cmd := &cobra.Command{
		Use:         "agent",
		Annotations: generatesLoad,
		Short:       "Serve a coordinator on this host: start nodes, load shares and brokers here",
		Long: `Serve the agent API (schema/hopbench/agent/v1) until interrupted: a coordinator
(hopbench run with hosts in its spec) starts nodes, shares of the load and
brokers on this host through it, and reads this host's CPU, memory and network
counters. Everything a coordinator starts is stopped when it lets go, or dies.

An agent runs real processes, so it takes only coordinators it can
authenticate: give --tls-dir (the run's certificate bundle, made by hopbench
hosts certs; mutual TLS) or --token-file, or both (mutual TLS, and the token).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAgent(cmd, a, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:7070", "address the agent API is served on")
	fl.StringVar(&f.advertise, "advertise", "", "address the nodes and brokers started here listen on, reachable from the other hosts (default: --listen's host)")
	fl.StringVar(&f.name, "name", "", "this host's name, as the agent reports it (default: the hostname)")
	fl.StringVar(&f.tlsDir, "tls-dir", "", "the run's certificate bundle `DIR` (hopbench hosts certs): serve TLS and require coordinators' client certificates")
	fl.StringVar(&f.tokenFile, "token-file", "", "a `FILE` holding a token every coordinator must send (at least 16 bytes)")
	return cmd
}

func runAgent(cmd *cobra.Command, a *app, f agentFlags) error {
	auth, err := agent.LoadAuth(f.tlsDir, f.tokenFile)
	if err != nil {
		return usageError{err}
	}
	host, _, err := net.SplitHostPort(f.listen)
	if err != nil {
		return usageError{fmt.Errorf("--listen %q: %w", f.listen, err)}
	}
	adv := f.advertise
	if adv == "" {
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			return usageError{fmt.Errorf("--listen %s listens on every address: give --advertise, the one the other hosts reach this host at", f.listen)}
		}
		adv = host
	}
	if f.name == "" {
		f.name = hostname()
	}
	l, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "agent %s serving on %s; nodes listen on %s\n", f.name, l.Addr(), adv)
	if auth.TLS == nil {
		fmt.Fprintln(a.stderr, "agent: no --tls-dir: the token crosses the network in clear; use it only on a network of your own")
	}
	return agent.Serve(cmd.Context(), &agent.Server{Host: f.name, Advertise: adv, Log: a.stderr, BrokerDir: filepath.Join(broker.DefaultDir(), "agent-"+f.name)}, l, auth)
}

func hostname() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "agent"
}
