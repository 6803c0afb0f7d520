package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/calibrate"
)

func newCalibrateCommand(a *app) *cobra.Command {
	var samples int
	var format string
	cmd := &cobra.Command{
		Use:         "calibrate",
		Annotations: generatesLoad,
		Short:       "Measure this machine's floor: loopback TCP and HTTP round trips, the generator's own cost",
		Long: `Measure the floor every stack's latency stands on, here and now: the median
round trip of 64 bytes over loopback TCP and of a minimal net/http exchange,
one in flight, and the load generator's own CPU per request against a call
that does nothing; and the machine's noise: how far a fixed workload's
median (the HTTP round trip) moves over 5 batches. hopbench run does this
before its runs and stores it with every record, so reports can state
latency as a multiple of the floor, and measures the noise again after the
runs (noise-after.json beside the results): the report states both.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return usageError{fmt.Errorf("--format %q: want table or json", format)}
			}
			if samples < 100 {
				return usageError{fmt.Errorf("--samples %d: want at least 100", samples)}
			}
			c, err := calibrate.Measure(cmd.Context(), samples)
			if err != nil {
				return err
			}
			if format == "json" {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(c)
			}
			fmt.Fprintf(a.stdout, "TCP round trip    %8.1f µs  (median of %d, 64 B, loopback)\n", c.TCPRoundTripUs, samples)
			fmt.Fprintf(a.stdout, "HTTP round trip   %8.1f µs  (median of %d, net/http, keep-alive)\n", c.HTTPRoundTripUs, samples)
			fmt.Fprintf(a.stdout, "generator         %8.2f µs CPU per request\n", c.GeneratorCPUUsPerReq)
			fmt.Fprintf(a.stdout, "noise             %8.0f %%   (spread of the HTTP round trip's median over 5 batches: (max − min) / median)\n", 100*c.NoiseSpread)
			return nil
		},
	}
	cmd.Flags().IntVar(&samples, "samples", 5000, "round trips of each kind")
	cmd.Flags().StringVar(&format, "format", "table", "output: table or json")
	return cmd
}
