package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/aim-apiserver/aim-apiserver/pkg/servingcert"
)

// ServingCertOptions select the self-managed serving certificate (pkg/servingcert).
type ServingCertOptions struct {
	// Secret is namespace/name of the Secret holding the certificate; empty: --tls-cert-file or a generated one.
	Secret string
	// Hosts are the certificate's DNS names; empty: the Service aim-apiserver in the Secret's namespace,
	// aim-apiserver.<namespace>.svc.
	Hosts []string
	// APIService gets the certificate's bundle as its caBundle; empty: none.
	APIService string
	// Validity of a new certificate.
	Validity time.Duration
}

// defaultService is the Service kube-apiserver reaches aim-apiserver through (artifacts/deploy, the chart).
const defaultService = "aim-apiserver"

func (o *ServingCertOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Secret, "serving-cert-secret", o.Secret,
		"namespace/name of a Secret in which aim-apiserver keeps its own serving certificate: created when missing, "+
			"renewed before it expires, reloaded by every replica when it changes, its ca.crt put into the caBundle of "+
			"--serving-cert-apiservice. Replaces --tls-cert-file; cluster mode only.")
	fs.StringSliceVar(&o.Hosts, "serving-cert-hosts", o.Hosts,
		"DNS names of the self-managed serving certificate (default: "+defaultService+".<namespace of the Secret>.svc, "+
			"the name kube-apiserver verifies).")
	fs.StringVar(&o.APIService, "serving-cert-apiservice", o.APIService,
		"APIService whose caBundle the self-managed certificate's ca.crt is put into; empty: none.")
	fs.DurationVar(&o.Validity, "serving-cert-validity", 365*24*time.Hour,
		"Validity of a new self-managed serving certificate; it is renewed when a third of it is left.")
}

// Validate checks the options; secure are the serving options the certificate would replace.
func (o *ServingCertOptions) Validate(local bool, secure *genericoptions.SecureServingOptionsWithLoopback) []error {
	if o.Secret == "" {
		return nil
	}
	var errs []error
	if _, err := o.secretName(); err != nil {
		errs = append(errs, err)
	}
	if local {
		errs = append(errs, errors.New("--serving-cert-secret is a cluster-mode flag"))
	}
	if secure != nil && (secure.ServerCert.CertKey.CertFile != "" || secure.ServerCert.CertKey.KeyFile != "") {
		errs = append(errs, errors.New("--serving-cert-secret and --tls-cert-file/--tls-private-key-file are exclusive"))
	}
	if o.Validity < time.Hour {
		errs = append(errs, fmt.Errorf("--serving-cert-validity %s is shorter than an hour", o.Validity))
	}
	return errs
}

func (o *ServingCertOptions) secretName() (types.NamespacedName, error) {
	return namespacedName("--serving-cert-secret", o.Secret)
}

// namespacedName parses the namespace/name a flag names an object by.
func namespacedName(flag, ref string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, fmt.Errorf("%s %q: want namespace/name", flag, ref)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// start makes sure the Secret holds a certificate and returns its provider, which the secure server runs; kube
// reaches kube-apiserver.
func (o *ServingCertOptions) start(ctx context.Context, kube *rest.Config) (dynamiccertificates.CertKeyContentProvider, error) {
	secret, err := o.secretName()
	if err != nil {
		return nil, err
	}
	if kube == nil {
		return nil, errors.New("--serving-cert-secret needs kube-apiserver: set --kubeconfig, or run in a pod")
	}
	cfg := rest.CopyConfig(kube)
	cfg.UserAgent = "aim-apiserver-serving-cert"
	kubeClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	hosts := o.Hosts
	if len(hosts) == 0 {
		hosts = []string{fmt.Sprintf("%s.%s.svc", defaultService, secret.Namespace)}
	}
	p := servingcert.New(servingcert.Options{Secret: secret, APIService: o.APIService, Hosts: hosts, Validity: o.Validity}, kubeClient, dyn)
	if err := p.Start(ctx, 2*time.Minute); err != nil {
		return nil, err
	}
	return p, nil
}
