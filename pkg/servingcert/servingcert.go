// Package servingcert lets aim-apiserver manage its own serving certificate, as webhook certificate
// controllers do: the certificate lives in a Secret that the server creates when it is missing and renews before
// it expires, every replica serves what the Secret holds, and the Secret's ca.crt is put into the APIService's
// caBundle. Nothing of it is rendered by a chart, so a GitOps tool that renders without a cluster sees the same
// manifests every time and never fights the server over the caBundle.
//
// The certificate is self-signed (it is its own CA: there is no CA key to keep). ca.crt holds it and the
// certificates it replaced until they expire, so that during a renewal the replicas still serving the previous
// one stay trusted; a replica injects the new bundle into the APIService before it serves the new certificate.
package servingcert

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
)

// Keys of the Secret: a kubernetes.io/tls Secret with ca.crt, as cert-manager writes it, so that the ServiceMonitor
// and `aim-apiserver migrate` read it the same way whoever made it.
const (
	KeyCert   = corev1.TLSCertKey
	KeyKey    = corev1.TLSPrivateKeyKey
	KeyBundle = "ca.crt"
)

// APIServiceGVR is the resource of the APIService the caBundle goes into.
var APIServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// Options say which Secret holds the certificate and what it certifies.
type Options struct {
	// Secret is where the certificate lives (namespace/name).
	Secret types.NamespacedName
	// APIService gets the Secret's ca.crt as its caBundle; empty: none.
	APIService string
	// Hosts are the DNS names (or IP addresses) the certificate is valid for: the Service name kube-apiserver
	// dials, <service>.<namespace>.svc.
	Hosts []string
	// Validity of a new certificate; it is renewed once less than a third of it is left.
	Validity time.Duration
}

// Provider serves the certificate of the Secret (dynamiccertificates.CertKeyContentProvider) and keeps the
// Secret and the APIService's caBundle right while it runs.
type Provider struct {
	opts Options
	kube kubernetes.Interface
	dyn  dynamic.Interface
	now  func() time.Time

	mu        sync.RWMutex
	cert, key []byte
	listeners []dynamiccertificates.Listener

	queue workqueue.TypedRateLimitingInterface[string]
}

var (
	_ dynamiccertificates.CertKeyContentProvider = &Provider{}
	_ dynamiccertificates.ControllerRunner       = &Provider{}
)

const queueKey = "serving-cert"

// errChanged: another replica wrote the Secret while this one renewed it; the next sync serves what it wrote.
var errChanged = errors.New("the Secret changed while renewing it; reading it again")

// New returns a Provider; call Sync once before serving (Start does), then Run.
func New(opts Options, kube kubernetes.Interface, dyn dynamic.Interface) *Provider {
	if opts.Validity == 0 {
		opts.Validity = 365 * 24 * time.Hour
	}
	return &Provider{opts: opts, kube: kube, dyn: dyn, now: time.Now,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "serving-cert"})}
}

func (p *Provider) Name() string { return "serving-cert-secret::" + p.opts.Secret.String() }

func (p *Provider) CurrentCertKeyContent() ([]byte, []byte) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.cert, p.key
}

func (p *Provider) AddListener(l dynamiccertificates.Listener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, l)
}

// Start makes sure a certificate is served from the start: it syncs until it succeeds or timeout passes.
func (p *Provider) Start(ctx context.Context, timeout time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if last = p.Sync(ctx); last != nil {
			klog.InfoS("Serving certificate not ready yet", "secret", p.opts.Secret, "err", last)
			return false, nil
		}
		return true, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("serving certificate of Secret %s: %w", p.opts.Secret, last)
	}
	return err
}

// RunOnce is part of dynamiccertificates.ControllerRunner; Start already did the first sync.
func (p *Provider) RunOnce(ctx context.Context) error { return nil }

// Run watches the Secret and the APIService and syncs on every change of either, and in time for renewal.
func (p *Provider) Run(ctx context.Context, _ int) {
	defer utilruntime.HandleCrash()
	defer p.queue.ShutDown()

	byName := func(name string) func(*metav1.ListOptions) {
		return func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}
	}
	enqueue := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { p.queue.Add(queueKey) },
		UpdateFunc: func(any, any) { p.queue.Add(queueKey) },
		DeleteFunc: func(any) { p.queue.Add(queueKey) },
	}
	secrets := informers.NewSharedInformerFactoryWithOptions(p.kube, 10*time.Minute,
		informers.WithNamespace(p.opts.Secret.Namespace), informers.WithTweakListOptions(byName(p.opts.Secret.Name)))
	if _, err := secrets.Core().V1().Secrets().Informer().AddEventHandler(enqueue); err != nil {
		utilruntime.HandleError(err)
	}
	secrets.Start(ctx.Done())
	defer secrets.Shutdown()
	if p.opts.APIService != "" {
		apiServices := dynamicinformer.NewFilteredDynamicSharedInformerFactory(p.dyn, 10*time.Minute, "", byName(p.opts.APIService))
		if _, err := apiServices.ForResource(APIServiceGVR).Informer().AddEventHandler(enqueue); err != nil {
			utilruntime.HandleError(err)
		}
		apiServices.Start(ctx.Done())
		defer apiServices.Shutdown()
	}

	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		for p.processNext(ctx) {
		}
	}, time.Second)
	<-ctx.Done()
}

func (p *Provider) processNext(ctx context.Context) bool {
	key, quit := p.queue.Get()
	if quit {
		return false
	}
	defer p.queue.Done(key)
	if err := p.Sync(ctx); errors.Is(err, errChanged) {
		p.queue.Add(key)
		return true
	} else if err != nil {
		klog.ErrorS(err, "Syncing the serving certificate", "secret", p.opts.Secret)
		p.queue.AddRateLimited(key)
		return true
	}
	p.queue.Forget(key)
	// Look again in time for the renewal, and at least hourly.
	if renew := p.renewAt(); !renew.IsZero() {
		p.queue.AddAfter(key, min(time.Hour, max(time.Second, renew.Sub(p.now()))))
	}
	return true
}

// Sync makes the Secret hold a valid certificate for the hosts (creating or renewing it), puts its bundle into
// the APIService, then serves it.
func (p *Provider) Sync(ctx context.Context) error {
	secrets := p.kube.CoreV1().Secrets(p.opts.Secret.Namespace)
	secret, err := secrets.Get(ctx, p.opts.Secret.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		secret = nil
	case err != nil:
		return fmt.Errorf("reading Secret %s: %w", p.opts.Secret, err)
	}
	if why := p.needsNew(secret); why != "" {
		return p.renew(ctx, secret, why)
	}
	if err := p.inject(ctx, secret.Data[KeyBundle]); err != nil {
		return err
	}
	return p.serve(secret.Data[KeyCert], secret.Data[KeyKey])
}

// needsNew says why the Secret's certificate cannot be served as it is, or "".
func (p *Provider) needsNew(secret *corev1.Secret) string {
	if secret == nil {
		return "the Secret does not exist"
	}
	pair, err := tls.X509KeyPair(secret.Data[KeyCert], secret.Data[KeyKey])
	if err != nil {
		return fmt.Sprintf("its certificate and key do not parse: %v", err)
	}
	cert := pair.Leaf
	for _, h := range p.opts.Hosts {
		if cert.VerifyHostname(h) != nil {
			return fmt.Sprintf("its certificate is not valid for %s", h)
		}
	}
	if !certgen.Contains(certgen.ParseBundle(secret.Data[KeyBundle]), cert) {
		return "its ca.crt does not hold its certificate"
	}
	if !p.now().Before(certgen.RenewalTime(cert)) {
		return fmt.Sprintf("its certificate expires at %s", cert.NotAfter.UTC().Format(time.RFC3339))
	}
	return ""
}

// renew writes a new certificate into the Secret; the write's watch event brings the next Sync, which injects
// and serves it. The bundle keeps the certificates that are still valid: the old Secret's and the one this
// replica serves (a deleted Secret is so replaced without a moment in which a replica is not trusted).
func (p *Provider) renew(ctx context.Context, old *corev1.Secret, why string) error {
	certPEM, keyPEM, err := p.generate()
	if err != nil {
		return err
	}
	keep := []*x509.Certificate{}
	if old != nil {
		keep = certgen.ParseBundle(old.Data[KeyBundle])
	}
	if served, _ := p.CurrentCertKeyContent(); served != nil {
		keep = append(keep, certgen.ParseBundle(served)...)
	}
	bundle := bytes.Clone(certPEM)
	var kept []*x509.Certificate
	for _, c := range keep {
		if p.now().Before(c.NotAfter) && !certgen.Contains(kept, c) {
			kept = append(kept, c)
			bundle = append(bundle, certgen.EncodeBundle(c)...)
		}
	}
	data := map[string][]byte{KeyCert: certPEM, KeyKey: keyPEM, KeyBundle: bundle}
	secrets := p.kube.CoreV1().Secrets(p.opts.Secret.Namespace)
	if old == nil {
		_, err = secrets.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: p.opts.Secret.Name, Namespace: p.opts.Secret.Namespace,
				Labels: map[string]string{"app.kubernetes.io/name": "aim-apiserver", "app.kubernetes.io/managed-by": "aim-apiserver"}},
			Type: corev1.SecretTypeTLS, Data: data,
		}, metav1.CreateOptions{})
	} else {
		updated := old.DeepCopy()
		updated.Data = data
		_, err = secrets.Update(ctx, updated, metav1.UpdateOptions{})
	}
	if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) {
		// Another replica wrote it first: serve what it wrote.
		return errChanged
	}
	if err != nil {
		return fmt.Errorf("writing a new serving certificate into Secret %s (%s): %w", p.opts.Secret, why, err)
	}
	klog.InfoS("Wrote a new serving certificate", "secret", p.opts.Secret, "reason", why, "hosts", p.opts.Hosts,
		"notAfter", p.now().Add(p.opts.Validity).UTC().Format(time.RFC3339), "bundle", len(kept)+1)
	// Serve it now rather than at the Secret's watch event: the next Sync sees a valid Secret.
	return p.Sync(ctx)
}

// inject sets the APIService's caBundle to bundle unless it is already. An APIService that does not exist (not
// installed yet) or routes to no Service (aim-engine's CRDs, before a migration) is left alone; its creation or
// switch brings another Sync.
func (p *Provider) inject(ctx context.Context, bundle []byte) error {
	if p.opts.APIService == "" {
		return nil
	}
	apiServices := p.dyn.Resource(APIServiceGVR)
	svc, err := apiServices.Get(ctx, p.opts.APIService, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return fmt.Errorf("reading APIService %s: %w", p.opts.APIService, err)
	}
	// An APIService without a Service is served by kube-apiserver itself (aim-engine's CRDs, before
	// `aim-apiserver migrate` switches it): its caBundle is none of ours.
	if service, found, _ := unstructured.NestedFieldNoCopy(svc.Object, "spec", "service"); !found || service == nil {
		return nil
	}
	current, _, _ := unstructured.NestedString(svc.Object, "spec", "caBundle")
	want := base64.StdEncoding.EncodeToString(bundle)
	if current == want {
		return nil
	}
	patch := fmt.Appendf(nil, `{"spec":{"caBundle":%q}}`, want)
	if _, err := apiServices.Patch(ctx, p.opts.APIService, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "aim-apiserver"}); err != nil {
		return fmt.Errorf("setting the caBundle of APIService %s: %w", p.opts.APIService, err)
	}
	klog.InfoS("Set the APIService's caBundle", "apiService", p.opts.APIService, "certificates", len(certgen.ParseBundle(bundle)))
	return nil
}

// serve makes the pair the served certificate and tells the listeners (the TLS server) when it changed.
func (p *Provider) serve(cert, key []byte) error {
	p.mu.Lock()
	changed := !bytes.Equal(cert, p.cert) || !bytes.Equal(key, p.key)
	p.cert, p.key = cert, key
	listeners := slices.Clone(p.listeners)
	p.mu.Unlock()
	if changed {
		for _, l := range listeners {
			l.Enqueue()
		}
	}
	return nil
}

// renewAt is when the served certificate is due for renewal; zero when none is served.
func (p *Provider) renewAt() time.Time {
	cert, _ := p.CurrentCertKeyContent()
	certs := certgen.ParseBundle(cert)
	if len(certs) == 0 {
		return time.Time{}
	}
	return certgen.RenewalTime(certs[0])
}

// generate makes a self-signed certificate for the hosts.
func (p *Provider) generate() (certPEM, keyPEM []byte, err error) {
	now := p.now()
	return certgen.Issue(certgen.Request{
		CommonName: p.opts.Hosts[0],
		Hosts:      p.opts.Hosts,
		Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		CA:         true,
		NotBefore:  now,
		NotAfter:   now.Add(p.opts.Validity),
	}, nil)
}
