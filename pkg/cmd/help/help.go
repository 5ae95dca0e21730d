// Package help gives aim-apiserver's subcommands their own --help. The root command prints its flags in named
// sets (k8s.io/component-base's usage function), and cobra hands a subcommand without a usage function of its own
// the root's, which would list the server's flags under every subcommand.
package help

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	cliflag "k8s.io/component-base/cli/flag"
)

// Own makes cmd's --help and usage show its description, its subcommands and its own flags.
func Own(cmd *cobra.Command) {
	usage := func(c *cobra.Command, w io.Writer) {
		fmt.Fprintf(w, "Usage:\n  %s\n", c.UseLine())
		if c.HasAvailableSubCommands() {
			fmt.Fprintf(w, "\nCommands:\n")
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() {
					fmt.Fprintf(w, "  %-12s %s\n", sub.Name(), sub.Short)
				}
			}
			fmt.Fprintf(w, "\nUse \"%s <command> --help\" for a command's flags.\n", c.CommandPath())
		}
		var fss cliflag.NamedFlagSets
		if c.HasAvailableLocalFlags() {
			fss.FlagSet(c.Name()).AddFlagSet(c.LocalFlags())
		}
		cliflag.PrintSections(w, fss, 100)
	}
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		usage(c, c.OutOrStderr())
		return nil
	})
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprintf(c.OutOrStdout(), "%s\n\n", strings.TrimSpace(c.Long))
		usage(c, c.OutOrStdout())
	})
}
