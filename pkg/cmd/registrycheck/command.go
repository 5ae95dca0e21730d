// Package registrycheck is the `aim-apiserver check-registry` command: it shows what the server trusts and how
// it reaches registries, and reads an image's labels the way the controller does. Run it where the server runs
// (kubectl exec into a replica) to tell a missing CA, a proxy or a registry refusal apart.
package registrycheck

import (
	"context"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/spf13/cobra"

	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/help"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/trust"
)

// NewCommand returns the check-registry command.
func NewCommand(ctx context.Context, out io.Writer) *cobra.Command {
	var listRoots bool
	var registryConfig string
	cmd := &cobra.Command{
		Use:   "check-registry [IMAGE]",
		Short: "Show the certificate authorities and proxy aim-apiserver uses for registries, and read an image's AIM labels",
		Long: `check-registry reports where aim-apiserver's trusted certificate authorities come from (SSL_CERT_FILE,
SSL_CERT_DIR, the image's bundle, or the bundle built into the binary) and which proxy a registry request
takes (HTTPS_PROXY, NO_PROXY). Given an image reference it reads the image's labels anonymously, as the
controller reads a model's image (through the mirrors of --registry-config, as the controller does), and prints
the AIM model they describe and the mirror that answered, or the error the controller would report. Run it
inside a replica:

  kubectl -n aim-system exec deploy/aim-apiserver -- /aim-apiserver check-registry docker.io/amdenterpriseai/aim-base:latest
  kubectl -n aim-system exec deploy/aim-apiserver -- /aim-apiserver check-registry \
    --registry-config /etc/aim-apiserver/registries/registries.yaml docker.io/amdenterpriseai/aim-base:latest`,
		Args:         cobra.MaximumNArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := reportTrust(out, listRoots); err != nil {
				return err
			}
			if len(args) == 0 {
				return nil
			}
			registries, err := mirrors.NewSource(registryConfig)
			if err != nil {
				return err
			}
			return checkImage(cmd.Context(), out, args[0], registries)
		},
	}
	cmd.SetContext(ctx)
	cmd.Flags().BoolVar(&listRoots, "list-roots", false, "Print the subject of every trusted certificate authority.")
	cmd.Flags().StringVar(&registryConfig, "registry-config", "", "The registry mirrors file the server uses (--registry-config of the server).")
	help.Own(cmd)
	return cmd
}

// reportTrust prints where the trusted roots come from, as the server loads them (package trust), and how many
// there are.
func reportTrust(out io.Writer, listRoots bool) error {
	roots, err := trust.Load()
	if err != nil {
		return err
	}
	pool := roots.Pool
	//nolint:staticcheck // Subjects is deprecated for the system pool of other platforms; on Linux it lists the pool.
	subjects := pool.Subjects()
	from := strings.Join(roots.From, ", ")
	if len(roots.From) == 0 {
		from = "the bundle built into aim-apiserver (golang.org/x/crypto/x509roots/fallback)"
	}
	fmt.Fprintf(out, "trusted certificate authorities: %d from %s\n", len(subjects), from)
	if listRoots {
		names := make([]string, 0, len(subjects))
		for _, raw := range subjects {
			names = append(names, subjectString(raw))
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintf(out, "  %s\n", n)
		}
	}
	for _, scheme := range []string{"https", "http"} {
		u := &url.URL{Scheme: scheme, Host: "registry.example", Path: "/v2/"}
		proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u})
		switch {
		case err != nil:
			fmt.Fprintf(out, "%s proxy: invalid (%v)\n", scheme, err)
		case proxy != nil:
			fmt.Fprintf(out, "%s proxy: %s (NO_PROXY=%q)\n", scheme, proxy.Redacted(), noProxy())
		default:
			fmt.Fprintf(out, "%s proxy: none\n", scheme)
		}
	}
	return nil
}

func noProxy() string {
	if v := os.Getenv("NO_PROXY"); v != "" {
		return v
	}
	return os.Getenv("no_proxy")
}

func subjectString(raw []byte) string {
	var seq pkix.RDNSequence
	if _, err := asn1.Unmarshal(raw, &seq); err != nil {
		return fmt.Sprintf("(unparsable subject: %v)", err)
	}
	var name pkix.Name
	name.FillFromRDNSequence(&seq)
	return name.String()
}

// checkImage reads the image's labels as the model controller does (anonymously: pull secrets live in the
// model's namespace) and prints the AIM metadata they carry.
func checkImage(ctx context.Context, out io.Writer, image string, registries *mirrors.Source) error {
	ref, err := name.ParseReference(image)
	if err != nil {
		return fmt.Errorf("image %q: %w", image, err)
	}
	fmt.Fprintf(out, "registry: %s\n", ref.Context().RegistryStr())
	labels, from, err := imagemeta.Fetcher{Allowed: []string{"*"}, Mirrors: registries}.Labels(ctx, image, nil)
	if err != nil {
		return err
	}
	if from != "" {
		fmt.Fprintf(out, "read from the mirror %s\n", from)
	}
	md, err := imagemeta.FromLabels(labels)
	if err != nil {
		return fmt.Errorf("image %s: %w", image, err)
	}
	fmt.Fprintf(out, "image %s: %d labels\n", image, len(labels))
	if m := md.Model; m != nil {
		fmt.Fprintf(out, "  model: %q, source %q, %d recommended deployments\n", m.CanonicalName, m.Source, len(m.RecommendedDeployments))
	}
	return nil
}
