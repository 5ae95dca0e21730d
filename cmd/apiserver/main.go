// Command aim-apiserver serves the aim.eai.amd.com API.
package main

import (
	"os"

	// Public certificate authorities for registries when the system has none (an image without a CA bundle,
	// or a binary copied onto one); SSL_CERT_FILE and SSL_CERT_DIR still come first.
	_ "golang.org/x/crypto/x509roots/fallback"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"

	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/app"
)

func main() {
	ctx := genericapiserver.SetupSignalContext()
	os.Exit(cli.Run(app.NewCommand(ctx, os.Stdout)))
}
