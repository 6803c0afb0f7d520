package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/transport"
)

// defaultAddr is where a stack's node listens and its load connects when
// no address is given: loopback port 7070 for direct stacks; for broker
// stacks, the broker's usual address (its usual TLS address with TLS,
// with mutual TLS or without: broker.DefaultTLSAddrFor) and
// the service name "hopbench".
func defaultAddr(st transport.Stack, useTLS, mutual bool) string {
	t, err := transport.Lookup(st.Transport)
	if err != nil {
		return "127.0.0.1:7070"
	}
	if c := t.Caps(); c.Broker != "" {
		addr := broker.DefaultAddr[c.Broker]
		if tlsAddr := broker.DefaultTLSAddrFor(c.Broker, mutual); useTLS && tlsAddr != "" {
			addr = tlsAddr
		}
		return c.Scheme + "://" + addr + "/hopbench"
	}
	return "127.0.0.1:7070"
}

type brokersFlags struct {
	dir, format, tlsDir string
	force, mtls         bool
}

func newBrokersCommand(a *app) *cobra.Command {
	f := &brokersFlags{}
	cmd := &cobra.Command{
		Use:   "brokers up|down|status [rabbitmq|kafka|nats|redis|mosquitto]...",
		Short: "Start, stop or show the message brokers the broker stacks use",
		Long: `Start, stop or show the brokers of the amqp, kafka, nats, redis and mqtt
stacks, on loopback at their usual ports (RabbitMQ ` + broker.DefaultAddr["rabbitmq"] + `, Kafka ` + broker.DefaultAddr["kafka"] + `,
NATS ` + broker.DefaultAddr["nats"] + `, Redis ` + broker.DefaultAddr["redis"] + `, Mosquitto ` + broker.DefaultAddr["mosquitto"] + `), with their
data under --dir. With no broker named, all.

up starts those not already answering and leaves them running; down stops
those hopbench started (a broker hopbench did not start is left alone, and
one another hopbench run is using is stopped only with --force); status
shows each one's address, PID, version, memory and the runs using it.

hopbench run starts the brokers an experiment needs by itself and stops the
ones it started; brokers up is for hopbench node and hopbench load by hand.`,
		Example: `  hopbench brokers up rabbitmq
  hopbench node --stack amqp &
  hopbench load --stack amqp --op echo --model text --count 10 --clients 4 --duration 3s
  hopbench brokers status
  hopbench brokers down`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBrokers(cmd, a, f, args) },
	}
	cmd.Flags().StringVar(&f.dir, "dir", broker.DefaultDir(), "data directory of the brokers hopbench starts")
	cmd.Flags().StringVar(&f.format, "format", "table", "status output: table or json")
	cmd.Flags().StringVar(&f.tlsDir, "tls-dir", "", "up: also take TLS clients (RabbitMQ on 127.0.0.1:5671, Kafka on 127.0.0.1:9093, NATS on its own port, Redis on 127.0.0.1:6380, Mosquitto on 127.0.0.1:8883), with the certificates in `DIR` (made there if missing; give nodes and loads the same --tls-dir)")
	cmd.Flags().BoolVar(&f.mtls, "mtls", false, "up, with --tls-dir: require client certificates on the TLS listeners")
	cmd.Flags().BoolVar(&f.force, "force", false, "down: stop a broker even while another hopbench run is using it")
	return cmd
}

func runBrokers(cmd *cobra.Command, a *app, f *brokersFlags, args []string) error {
	action, names := args[0], args[1:]
	if len(names) == 0 {
		names = broker.Names
	}
	for _, n := range names {
		if !slices.Contains(broker.Names, n) {
			return usageError{fmt.Errorf("unknown broker %q (known: %s)", n, strings.Join(broker.Names, ", "))}
		}
	}
	cfg := broker.Config{Dir: f.dir, Detach: true, Force: f.force, TLSDir: f.tlsDir, MTLS: f.mtls, Notify: func(msg string) { fmt.Fprintln(a.stderr, msg) }}
	ctx := cmd.Context()
	switch action {
	case "up":
		for _, n := range names {
			fmt.Fprintf(a.stderr, "%s: starting...\n", n)
			b, err := broker.Start(ctx, n, cfg)
			if err != nil {
				return err
			}
			how := "already running, used as is"
			if b.Started {
				how = "started; log " + b.Log
			}
			switch {
			case b.TLSAddr != "" && b.MTLS:
				how += fmt.Sprintf("; mutual TLS at %s with the certificates in %s: a client without a certificate is refused there; the plain listener at %s still takes clients without TLS or certificates", b.TLSAddr, b.TLSDir, b.Addr)
			case b.TLSAddr != "":
				how += fmt.Sprintf("; TLS at %s with the certificates in %s", b.TLSAddr, b.TLSDir)
			}
			b.Leave()
			if cfg.TLSDir != "" {
				if err := b.NeedTLS(cfg.MTLS); err != nil {
					return err
				}
			}
			fmt.Fprintf(a.stdout, "%s %s at %s (pid %d): %s\n", n, b.Version, b.Addr, b.PID, how)
		}
	case "down":
		for _, n := range names {
			msg, err := broker.Down(ctx, n, cfg)
			if msg != "" {
				fmt.Fprintln(a.stdout, msg)
			}
			if err != nil {
				return err
			}
		}
	case "status":
		return brokerStatus(ctx, a, cfg, names, f.format)
	default:
		return usageError{fmt.Errorf("unknown action %q: want up, down or status", action)}
	}
	return nil
}

func brokerStatus(ctx context.Context, a *app, cfg broker.Config, names []string, format string) error {
	var all []broker.Status
	for _, n := range names {
		st, err := broker.GetStatus(ctx, n, cfg)
		if err != nil {
			return err
		}
		all = append(all, st)
	}
	if format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "broker\taddress\ttls\tstate\tpid\tversion\trss\tstarted by hopbench\tused by")
	for _, st := range all {
		state, pid, rss, by := "down", "-", "-", "-"
		if st.Stale {
			state = "down (stale state)"
		}
		if st.Up {
			state = "up"
			if st.PID > 0 {
				pid = fmt.Sprint(st.PID)
			}
			if st.RSSBytes > 0 {
				rss = fmt.Sprintf("%.0f MiB", float64(st.RSSBytes)/(1<<20))
			}
			by = map[bool]string{true: "yes", false: "no"}[st.Started]
		}
		tls := orDash(st.TLSAddr)
		if st.MTLS {
			tls += " (mtls)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Name, st.Addr, tls, state, pid, orDash(st.Version), rss, by, orDash(strings.Join(st.Users, "; ")))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// newBrokerProcessCommand is the NATS broker's own process: hopbench
// starts it with the embedded nats-server so its CPU and memory are
// measured apart from the load generator's.
func newBrokerProcessCommand(a *app) *cobra.Command {
	var addr string
	var t broker.NATSServer
	cmd := &cobra.Command{
		Use:    "broker-process nats --addr HOST:PORT [--store DIR] [--tls-dir DIR [--mtls --tls-addr HOST:PORT]]",
		Short:  "Run the embedded NATS broker (started by hopbench itself)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "nats" {
				return usageError{fmt.Errorf("broker-process runs nats only, not %q", args[0])}
			}
			// SIGTERM is how brokers are stopped.
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return broker.ServeNATS(ctx, addr, t, func() { fmt.Fprintf(a.stderr, "hopbench: nats serving on %s\n", addr) })
		},
	}
	cmd.Flags().StringVar(&addr, "addr", broker.DefaultAddr["nats"], "address to serve on")
	cmd.Flags().StringVar(&t.Dir, "tls-dir", "", "also take TLS clients, with the certificates in DIR")
	cmd.Flags().BoolVar(&t.Mutual, "mtls", false, "with --tls-dir: require client certificates, on a listener of their own")
	cmd.Flags().StringVar(&t.Addr, "tls-addr", "", "with --mtls: the address of the mutual TLS listener")
	cmd.Flags().StringVar(&t.StoreDir, "store", "", "JetStream's storage directory (JetStream is off without it)")
	return cmd
}
