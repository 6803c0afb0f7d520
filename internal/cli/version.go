package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/environment"
)

func newVersionCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print hopbench's version and the versions of Go and of every stack library",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env := environment.Describe()
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "hopbench\t%s\n", env.Hopbench)
			fmt.Fprintf(tw, "go\t%s %s/%s\n", env.Go, env.OS, env.Arch)
			for _, l := range env.Libraries {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Name, l.Version, l.Module)
			}
			return tw.Flush()
		},
	}
}
