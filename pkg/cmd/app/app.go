// Package app assembles the aim-apiserver command: the server with its subcommands. The binary runs it, and the
// chart's tests parse the arguments the chart ships with it.
package app

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/etcd"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/migrate"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/registrycheck"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/server"
)

// NewCommand returns the aim-apiserver command with every subcommand, writing to out.
func NewCommand(ctx context.Context, out io.Writer) *cobra.Command {
	cmd := server.NewCommand(ctx, server.NewOptions(out))
	cmd.AddCommand(migrate.NewCommand(ctx, out))
	cmd.AddCommand(registrycheck.NewCommand(ctx, out))
	cmd.AddCommand(etcd.NewCommand(ctx, out))
	return cmd
}
