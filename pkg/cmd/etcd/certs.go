package etcd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/etcdcerts"
)

type certsOptions struct {
	kubeconfig string
	certs      etcdcerts.Options
	clientDir  string
	timeout    time.Duration
}

// newCertsCommand returns `etcd certs`, the init container of aim-apiserver's pods with the bundled etcd: it makes
// sure the etcd certificate Secrets exist (pkg/etcdcerts) and writes aim-apiserver's client certificate into a
// directory the server container reads it from.
func newCertsCommand(out io.Writer) *cobra.Command {
	o := certsOptions{certs: etcdcerts.DefaultOptions(os.Getenv("POD_NAMESPACE")), timeout: 2 * time.Minute}
	cmd := &cobra.Command{
		Use:   "certs",
		Short: "Create the certificates of the bundled etcd in Secrets, and write aim-apiserver's client certificate to a directory",
		Long: `certs makes sure the Secrets of the bundled etcd hold one consistent set of certificates: a CA of
etcd's own (kept in --ca-secret), the server and peer certificates the members serve, and aim-apiserver's
client certificate. It creates what is missing and re-signs, with the same CA, a certificate whose names
changed or that has a third of its validity left; it never replaces a certificate of another CA, which would
cut a running etcd apart, and says what to do instead.

aim-apiserver's pods run it as an init container, so that the chart and artifacts/deploy render no
certificate (a GitOps tool sees the same manifests every time); the etcd pods start once their Secrets exist.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), out)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Kubeconfig; empty uses $KUBECONFIG or the in-cluster config.")
	fs.StringVar(&o.certs.Namespace, "namespace", o.certs.Namespace, "Namespace of the Secrets (default $POD_NAMESPACE).")
	fs.StringVar(&o.certs.CASecret, "ca-secret", o.certs.CASecret, "Secret of the CA certificate and key.")
	fs.StringVar(&o.certs.Server.Secret, "server-secret", o.certs.Server.Secret, "Secret of etcd's serving certificate.")
	fs.StringVar(&o.certs.Peer.Secret, "peer-secret", o.certs.Peer.Secret, "Secret of the members' peer certificate.")
	fs.StringVar(&o.certs.Client.Secret, "client-secret", o.certs.Client.Secret, "Secret of aim-apiserver's client certificate.")
	fs.StringSliceVar(&o.certs.Server.Hosts, "server-hosts", nil,
		"DNS names and IP addresses of the server certificate: the client Service's names, every member's, localhost and 127.0.0.1 (etcd's gRPC gateway dials itself).")
	fs.StringSliceVar(&o.certs.Peer.Hosts, "peer-hosts", nil, "DNS names and IP addresses of the peer certificate: every member's.")
	fs.DurationVar(&o.certs.Validity, "validity", o.certs.Validity, "Validity of a new server, peer or client certificate; the CA gets twice as long.")
	fs.StringVar(&o.clientDir, "client-dir", "", "Directory to write the client certificate to (tls.crt, tls.key, ca.crt); empty: none.")
	fs.DurationVar(&o.timeout, "timeout", o.timeout, "How long to retry while kube-apiserver cannot be reached.")
	return cmd
}

func (o *certsOptions) run(ctx context.Context, out io.Writer) error {
	switch {
	case o.certs.Namespace == "":
		return errors.New("--namespace is required (or $POD_NAMESPACE)")
	case len(o.certs.Server.Hosts) == 0 || len(o.certs.Peer.Hosts) == 0:
		return errors.New("--server-hosts and --peer-hosts are required")
	case o.certs.Validity < time.Hour:
		return fmt.Errorf("--validity %s is less than an hour", o.certs.Validity)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	config.UserAgent = "aim-apiserver-etcd-certs"
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	ensurer := etcdcerts.New(o.certs, kube.CoreV1())

	var client map[string][]byte
	var last error
	err = wait.PollUntilContextTimeout(ctx, 2*time.Second, o.timeout, true, func(ctx context.Context) (bool, error) {
		client, last = ensurer.Ensure(ctx)
		if errors.Is(last, etcdcerts.ErrInconsistent) {
			return false, last
		}
		if last != nil {
			klog.InfoS("etcd certificates not ready yet", "err", last)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		if last != nil {
			return last
		}
		return err
	}
	if o.clientDir != "" {
		for _, key := range []string{etcdcerts.KeyCert, etcdcerts.KeyKey, etcdcerts.KeyCA} {
			if err := os.WriteFile(filepath.Join(o.clientDir, key), client[key], 0o600); err != nil {
				return fmt.Errorf("writing the client certificate: %w", err)
			}
		}
	}
	_, err = fmt.Fprintf(out, "etcd certificates in Secrets %s, %s, %s and %s of namespace %s are current\n",
		o.certs.CASecret, o.certs.Server.Secret, o.certs.Peer.Secret, o.certs.Client.Secret, o.certs.Namespace)
	return err
}
