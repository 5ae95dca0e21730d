// Command aim-apiserver serves the aim.eai.amd.com API.
package main

import (
	"os"

	// Public certificate authorities for registries when the system has none (an image without a CA bundle,
	// or a binary copied onto one); SSL_CERT_FILE and SSL_CERT_DIR still come first.
	_ "golang.org/x/crypto/x509roots/fallback"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"

	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/etcd"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/migrate"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/registrycheck"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/server"
)

func main() {
	ctx := genericapiserver.SetupSignalContext()
	cmd := server.NewCommand(ctx, server.NewOptions(os.Stdout))
	cmd.AddCommand(migrate.NewCommand(ctx, os.Stdout))
	cmd.AddCommand(registrycheck.NewCommand(ctx, os.Stdout))
	cmd.AddCommand(etcd.NewCommand(ctx, os.Stdout))
	os.Exit(cli.Run(cmd))
}
