package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/hosts"
	"github.com/hopbench/hopbench/internal/network"
)

func newHostsCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hosts",
		Short: "Make hosts of their own on this machine, each with an agent (root)",
		Long: `Make hosts of their own on this machine for multi-host runs: hosts up N makes N
network namespaces joined by veth pairs to a bridge on a private range
(10.231.N.0/24), starts hopbench agent in each with a fresh certificate bundle,
and prints their addresses; a spec's hosts with no agent address are taken
from them. hosts down stops the agents and removes every namespace and link,
also after a crash. hosts certs makes a bundle for agents elsewhere (a
cluster's pods).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newHostsUpCommand(a), newHostsDownCommand(a), newHostsCertsCommand(a))
	return cmd
}

func newHostsUpCommand(a *app) *cobra.Command {
	var bandwidth string
	var port int
	cmd := &cobra.Command{
		Use:   "up N",
		Short: "Make N hosts (network namespaces), an agent in each",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := hosts.Config{Port: port, Dir: hosts.Dir()}
			var err error
			if _, err = fmt.Sscan(args[0], &cfg.N); err != nil || cfg.N < 1 || cfg.N > network.MaxHosts {
				return usageError{fmt.Errorf("hosts up %s: want a number of hosts from 1 to %d", args[0], network.MaxHosts)}
			}
			if bandwidth != "" {
				if cfg.Bandwidth, err = network.ParseBandwidth(bandwidth); err != nil {
					return usageError{fmt.Errorf("--bandwidth: %w", err)}
				}
			}
			if port < 1 || port > 65535 {
				return usageError{fmt.Errorf("--port %d: want 1 to 65535", port)}
			}
			st, err := hosts.Up(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			printHosts(a.stdout, st)
			return nil
		},
	}
	cmd.Flags().StringVar(&bandwidth, "bandwidth", "", "shape every link with tbf to this bandwidth, e.g. 100mbit (delay comes from a spec's network profiles)")
	cmd.Flags().IntVar(&port, "port", hosts.DefaultPort, "the port each host's agent serves on")
	return cmd
}

func printHosts(w io.Writer, st *hosts.State) {
	fmt.Fprintf(w, "%d hosts up on %s (this machine is %s there)", len(st.Hosts), st.Subnet, st.Here)
	if st.Bandwidth != "" {
		fmt.Fprintf(w, ", every link shaped to %s", st.Bandwidth)
	}
	fmt.Fprintln(w, ":")
	for _, h := range st.Hosts {
		fmt.Fprintf(w, "  %s  %-14s agent %s (pid %d, namespace %s, log %s)\n", h.Name, h.Addr, h.Agent, h.PID, h.NS, h.Log)
	}
	fmt.Fprintf(w, "The agents take coordinators with the certificates in %s (hopbench run --tls-dir %s).\n", st.TLSDir, st.TLSDir)
	fmt.Fprintln(w, "In a spec (hosts with no agent address are taken from here, and the run uses these certificates):")
	fmt.Fprintln(w, "hosts:")
	for _, h := range st.Hosts {
		fmt.Fprintf(w, "  - {name: %s, agent: \"%s\"}\n", h.Name, h.Agent)
	}
	fmt.Fprintln(w, "Take them down with: hopbench hosts down")
}

func newHostsDownCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "down",
		Short: "Stop the hosts' agents and remove every namespace and link",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			said, err := hosts.Down(hosts.Dir())
			fmt.Fprintln(a.stdout, "hosts down:", said)
			return err
		},
	}
}

func newHostsCertsCommand(a *app) *cobra.Command {
	var out string
	var names []string
	var valid time.Duration
	cmd := &cobra.Command{
		Use:   "certs",
		Short: "Make a certificate bundle for agents and their coordinator",
		Long: `Make a certificate bundle (a CA, a server certificate for the agents and a client
certificate for the coordinator) in a new directory, for agents that hosts up
does not start: give every name or address the coordinator dials them by.
Both the agents (hopbench agent --tls-dir) and the coordinator (hopbench run
--tls-dir) take the same directory; keep it secret.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError{errors.New("--out: give the directory to make")}
			}
			if _, err := os.Stat(out); err == nil {
				return usageError{fmt.Errorf("--out %s exists: give a new directory (a bundle is never overwritten)", out)}
			}
			b, err := certs.NewFor(certs.ParseNames(names), valid)
			if err != nil {
				return usageError{err}
			}
			if err := b.Store(out); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "bundle in %s for localhost and %s, valid %s\n", out, strings.Join(names, ", "), valid)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the directory to make")
	cmd.Flags().StringArrayVar(&names, "name", nil, "a DNS name or address the agents are dialled by (repeatable)")
	cmd.Flags().DurationVar(&valid, "valid", 30*24*time.Hour, "how long the certificates are valid (at most a year)")
	return cmd
}
