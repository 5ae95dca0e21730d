// Package help gives aim-apiserver's subcommands cobra's own --help. The root command prints its flags in named
// sets (k8s.io/component-base's usage function), and cobra hands a subcommand without a usage function of its own
// the root's, which would list the server's flags under every subcommand.
package help

import "github.com/spf13/cobra"

// cobraDefaults is a command without a parent: its usage and help functions are cobra's defaults, which print
// the command they are given (its description, subcommands and flags).
var cobraDefaults = &cobra.Command{}

// Own makes cmd's --help and usage cobra's defaults again.
func Own(cmd *cobra.Command) {
	cmd.SetUsageFunc(cobraDefaults.UsageFunc())
	cmd.SetHelpFunc(cobraDefaults.HelpFunc())
}
