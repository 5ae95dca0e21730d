// Package etcdcerts keeps the certificates of the bundled etcd in Secrets: a CA of etcd's own, the server and peer
// certificates the members serve, and aim-apiserver's client certificate. The `aim-apiserver etcd certs` init
// container runs it before aim-apiserver starts, so a chart rendered without a cluster (Argo CD, Flux,
// `helm template`) holds no certificate and renders the same every time; the etcd pods wait for their Secrets.
//
// The CA's key is kept (in the CA Secret) so that a certificate is re-signed by the same CA when its names change
// (more members) or a third of its validity is left: etcd reads its certificate files at every handshake and the
// members keep trusting each other. Whoever can read these Secrets can read and write every AIM object, with or
// without the CA's key: the client certificate is enough.
package etcdcerts

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
)

// Keys of the Secrets: kubernetes.io/tls with ca.crt, as cert-manager writes them, so that the etcd StatefulSet
// mounts them the same way whoever made them.
const (
	KeyCert = corev1.TLSCertKey
	KeyKey  = corev1.TLSPrivateKeyKey
	KeyCA   = "ca.crt"
)

// Leaf is one certificate signed by the CA and the Secret that holds it.
type Leaf struct {
	Secret     string
	CommonName string
	Hosts      []string
	Usages     []x509.ExtKeyUsage
}

// Options name the Secrets and what the certificates certify.
type Options struct {
	Namespace string
	// CASecret holds the CA certificate and key (tls.crt, tls.key).
	CASecret string
	// Server, Peer and Client are etcd's serving certificate, the members' peer certificate and aim-apiserver's
	// client certificate.
	Server, Peer, Client Leaf
	// Validity of a new server, peer or client certificate; the CA is valid twice as long, so that a certificate
	// re-signed when a third of its validity is left still ends before the CA does.
	Validity time.Duration
}

// DefaultOptions are the names of artifacts/deploy and the chart; Server.Hosts and Peer.Hosts depend on the
// installation.
func DefaultOptions(namespace string) Options {
	serverAndClient := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	return Options{
		Namespace: namespace,
		CASecret:  "aim-etcd-ca",
		// Client auth too: etcd's gRPC gateway connects to etcd itself with the server certificate.
		Server:   Leaf{Secret: "aim-etcd-server-tls", CommonName: "aim-etcd", Usages: serverAndClient},
		Peer:     Leaf{Secret: "aim-etcd-peer-tls", CommonName: "aim-etcd-peer", Usages: serverAndClient},
		Client:   Leaf{Secret: "aim-apiserver-etcd-client", CommonName: "aim-apiserver", Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
		Validity: 10 * 365 * 24 * time.Hour,
	}
}

// ErrInconsistent is returned when the Secrets cannot be completed without breaking a running etcd; retrying does
// not help, a person has to decide.
var ErrInconsistent = errors.New("the etcd certificate Secrets are inconsistent")

// errRaced: another replica wrote a Secret first; reading them again converges on what it wrote.
var errRaced = errors.New("a Secret was written concurrently")

// Ensurer makes the Secrets hold a consistent set of certificates.
type Ensurer struct {
	opts    Options
	secrets corev1client.SecretInterface
	now     func() time.Time
}

// New returns an Ensurer for the Secrets of opts.Namespace.
func New(opts Options, secrets corev1client.SecretsGetter) *Ensurer {
	return &Ensurer{opts: opts, secrets: secrets.Secrets(opts.Namespace), now: time.Now}
}

func (e *Ensurer) leaves() []Leaf { return []Leaf{e.opts.Server, e.opts.Peer, e.opts.Client} }

// Ensure creates what is missing and re-signs what is due, then returns the client Secret's data (tls.crt,
// tls.key, ca.crt). Replicas racing each other converge on the first one's writes.
func (e *Ensurer) Ensure(ctx context.Context) (map[string][]byte, error) {
	for range 5 {
		client, err := e.ensureOnce(ctx)
		if !errors.Is(err, errRaced) {
			return client, err
		}
	}
	return nil, fmt.Errorf("the etcd certificate Secrets keep changing while being written")
}

func (e *Ensurer) ensureOnce(ctx context.Context) (map[string][]byte, error) {
	// The leaves are read before the CA: a run writes the CA first, so a leaf seen here has its CA seen below,
	// and a run racing this one is never taken for a half-made set (two replicas' init containers at once).
	leaves := map[string]*corev1.Secret{}
	var present, missing []string
	for _, l := range e.leaves() {
		s, err := e.get(ctx, l.Secret)
		if err != nil {
			return nil, err
		}
		leaves[l.Secret] = s
		if s == nil {
			missing = append(missing, l.Secret)
		} else {
			present = append(present, l.Secret)
		}
	}
	ca, err := e.get(ctx, e.opts.CASecret)
	if err != nil {
		return nil, err
	}

	var issuer *certgen.Issuer
	switch {
	case ca != nil:
		if issuer, err = certgen.ParseIssuer(ca.Data[KeyCert], ca.Data[KeyKey]); err != nil {
			return nil, fmt.Errorf("%w: the CA in Secret %s/%s does not parse (%v): delete it together with %v, then "+
				"restart aim-apiserver and all etcd pods at once", ErrInconsistent, e.opts.Namespace, e.opts.CASecret, err, present)
		}
	case len(missing) == 0:
		// Made by an earlier chart (etcd.certs.mode=generate) or by hand: used as they are if they belong together.
		return e.adopt(leaves)
	case len(present) > 0:
		return nil, fmt.Errorf("%w: Secrets %v exist but %v do not, and there is no CA Secret %s to sign the missing "+
			"ones: delete %v and restart aim-apiserver and all etcd pods at once, or create the missing Secrets "+
			"with certificates of the same CA", ErrInconsistent, present, missing, e.opts.CASecret, present)
	default:
		if issuer, err = e.createCA(ctx); err != nil {
			return nil, err
		}
	}

	var client map[string][]byte
	for _, l := range e.leaves() {
		data, err := e.ensureLeaf(ctx, issuer, l, leaves[l.Secret])
		if err != nil {
			return nil, err
		}
		if l.Secret == e.opts.Client.Secret {
			client = data
		}
	}
	return client, nil
}

func (e *Ensurer) get(ctx context.Context, name string) (*corev1.Secret, error) {
	s, err := e.secrets.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading Secret %s/%s: %w", e.opts.Namespace, name, err)
	}
	return s, nil
}

// createCA makes the CA and its Secret.
func (e *Ensurer) createCA(ctx context.Context) (*certgen.Issuer, error) {
	now := e.now()
	certPEM, keyPEM, err := certgen.Issue(certgen.Request{CommonName: "aim-etcd-ca", CA: true,
		NotBefore: now, NotAfter: now.Add(2 * e.opts.Validity)}, nil)
	if err != nil {
		return nil, err
	}
	if err := e.write(ctx, nil, e.opts.CASecret, map[string][]byte{KeyCert: certPEM, KeyKey: keyPEM}); err != nil {
		return nil, err
	}
	klog.InfoS("Created the etcd CA", "secret", e.opts.Namespace+"/"+e.opts.CASecret)
	return certgen.ParseIssuer(certPEM, keyPEM)
}

// ensureLeaf signs the leaf's certificate when its Secret is missing, not of this CA, not for the hosts, or due.
// It returns the data the Secret holds afterwards.
func (e *Ensurer) ensureLeaf(ctx context.Context, issuer *certgen.Issuer, l Leaf, secret *corev1.Secret) (map[string][]byte, error) {
	why := e.needsNew(issuer, l, secret)
	if why == "" {
		return secret.Data, nil
	}
	if secret != nil && !issuedBy(secret, issuer) {
		// Replacing a certificate of another CA would cut the members using it off from the others.
		return nil, fmt.Errorf("%w: the certificate in Secret %s/%s is not signed by the CA in Secret %s: delete both "+
			"(and the other certificate Secrets), then restart aim-apiserver and all etcd pods at once",
			ErrInconsistent, e.opts.Namespace, l.Secret, e.opts.CASecret)
	}
	now := e.now()
	notAfter := now.Add(e.opts.Validity)
	if issuer.Cert.NotAfter.Before(notAfter) {
		notAfter = issuer.Cert.NotAfter
	}
	certPEM, keyPEM, err := certgen.Issue(certgen.Request{CommonName: l.CommonName, Hosts: l.Hosts, Usages: l.Usages,
		NotBefore: now, NotAfter: notAfter}, issuer)
	if err != nil {
		return nil, err
	}
	data := map[string][]byte{KeyCert: certPEM, KeyKey: keyPEM, KeyCA: certgen.EncodeBundle(issuer.Cert)}
	if err := e.write(ctx, secret, l.Secret, data); err != nil {
		return nil, err
	}
	klog.InfoS("Wrote an etcd certificate", "secret", e.opts.Namespace+"/"+l.Secret, "reason", why, "hosts", l.Hosts)
	return data, nil
}

// needsNew says why the Secret's certificate is not the one the leaf needs, or "".
func (e *Ensurer) needsNew(issuer *certgen.Issuer, l Leaf, secret *corev1.Secret) string {
	if secret == nil {
		return "the Secret does not exist"
	}
	cert, err := leafCert(secret)
	if err != nil {
		return err.Error()
	}
	if !issuedBy(secret, issuer) {
		return "it is not signed by the CA"
	}
	if !bytes.Equal(secret.Data[KeyCA], certgen.EncodeBundle(issuer.Cert)) {
		return "its ca.crt is not the CA"
	}
	if !slices.Equal(slices.Sorted(slices.Values(hostsOf(cert))), slices.Sorted(slices.Values(l.Hosts))) {
		return fmt.Sprintf("it is for %v", hostsOf(cert))
	}
	if !e.now().Before(certgen.RenewalTime(cert)) {
		return fmt.Sprintf("it expires at %s", cert.NotAfter.UTC().Format(time.RFC3339))
	}
	return ""
}

// adopt accepts three Secrets made without a CA Secret when their certificates share one CA.
func (e *Ensurer) adopt(leaves map[string]*corev1.Secret) (map[string][]byte, error) {
	ca := leaves[e.opts.Server.Secret].Data[KeyCA]
	for _, l := range e.leaves() {
		s := leaves[l.Secret]
		if _, err := leafCert(s); err != nil {
			return nil, fmt.Errorf("%w: Secret %s/%s: %v", ErrInconsistent, e.opts.Namespace, l.Secret, err)
		}
		if !bytes.Equal(s.Data[KeyCA], ca) {
			return nil, fmt.Errorf("%w: Secrets %s and %s have different ca.crt", ErrInconsistent, e.opts.Server.Secret, l.Secret)
		}
	}
	klog.InfoS("Using the etcd certificates as they are: there is no CA Secret to renew them with",
		"secrets", []string{e.opts.Server.Secret, e.opts.Peer.Secret, e.opts.Client.Secret}, "caSecret", e.opts.CASecret)
	return leaves[e.opts.Client.Secret].Data, nil
}

// write creates the Secret (old nil) or updates it; a concurrent write is errRaced.
func (e *Ensurer) write(ctx context.Context, old *corev1.Secret, name string, data map[string][]byte) error {
	var err error
	if old == nil {
		_, err = e.secrets.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.opts.Namespace, Labels: map[string]string{
				"app.kubernetes.io/name": "aim-etcd", "app.kubernetes.io/managed-by": "aim-apiserver"}},
			Type: corev1.SecretTypeTLS, Data: data,
		}, metav1.CreateOptions{})
	} else {
		updated := old.DeepCopy()
		updated.Data = data
		_, err = e.secrets.Update(ctx, updated, metav1.UpdateOptions{})
	}
	if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) {
		return errRaced
	}
	if err != nil {
		return fmt.Errorf("writing Secret %s/%s: %w", e.opts.Namespace, name, err)
	}
	return nil
}

func leafCert(s *corev1.Secret) (*x509.Certificate, error) {
	certs := certgen.ParseBundle(s.Data[KeyCert])
	if len(certs) == 0 || len(s.Data[KeyKey]) == 0 {
		return nil, fmt.Errorf("it has no certificate and key")
	}
	return certs[0], nil
}

func issuedBy(s *corev1.Secret, issuer *certgen.Issuer) bool {
	cert, err := leafCert(s)
	return err == nil && cert.CheckSignatureFrom(issuer.Cert) == nil
}

// hostsOf lists the DNS names and IP addresses a certificate is for.
func hostsOf(c *x509.Certificate) []string {
	hosts := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		hosts = append(hosts, ip.String())
	}
	return hosts
}
