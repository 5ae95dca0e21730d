// Command aim-apiserver serves the aim.eai.amd.com API.
package main

import (
	"os"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"

	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/migrate"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/server"
)

func main() {
	ctx := genericapiserver.SetupSignalContext()
	cmd := server.NewCommand(ctx, server.NewOptions(os.Stdout))
	cmd.AddCommand(migrate.NewCommand(ctx, os.Stdout))
	os.Exit(cli.Run(cmd))
}
