package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/spf13/pflag"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/authgate"
	"github.com/aim-apiserver/aim-apiserver/pkg/storage/deadline"
)

// LifecycleOptions decide how the server stops serving and how long it waits for etcd, so that a rollout or
// an etcd outage costs clients retries rather than errors. (k8s.io/apiserver's ServerRunOptions has the
// shutdown flags too, but brings the component-globals registry and emulation-version flags this server
// does not support; the flag names and meanings here are the same.)
type LifecycleOptions struct {
	// ShutdownDelay keeps serving after SIGTERM with /readyz failing, so that endpoints and the aggregator
	// stop sending requests here before the listener closes.
	ShutdownDelay time.Duration
	// ShutdownDelaySet records that the flag was given; local mode defaults to no delay otherwise.
	ShutdownDelaySet bool
	// WatchTerminationGracePeriod is how long open watches get to end after the delay; clients re-establish
	// them against another replica.
	WatchTerminationGracePeriod time.Duration
	// SendRetryAfter keeps the listener open while in-flight requests drain and answers new ones with 429 and
	// Retry-After, instead of refusing connections.
	SendRetryAfter bool
	// EtcdRequestTimeout bounds each write and single-object read against etcd (package deadline).
	EtcdRequestTimeout time.Duration
}

// NewLifecycleOptions returns the defaults: a graceful drain that ends well inside Kubernetes' default
// termination grace period of 30 s (5 s delay + at most 5 s for watches + 2 s for connections), and writes
// that fail after 10 s of etcd silence.
func NewLifecycleOptions() *LifecycleOptions {
	return &LifecycleOptions{
		ShutdownDelay:               5 * time.Second,
		WatchTerminationGracePeriod: 5 * time.Second,
		SendRetryAfter:              true,
		EtcdRequestTimeout:          10 * time.Second,
	}
}

// AddFlags adds the etcd timeout to etcdFlags and the shutdown flags to shutdownFlags.
func (o *LifecycleOptions) AddFlags(etcdFlags, shutdownFlags *pflag.FlagSet) {
	etcdFlags.DurationVar(&o.EtcdRequestTimeout, "etcd-request-timeout", o.EtcdRequestTimeout,
		"Longest wait for etcd to answer a write or a single-object read; then the request fails with reason ServerTimeout "+
			"and Retry-After (clients retry it) instead of hanging until the etcd client gives up. 0 waits as long as the request may.")
	shutdownFlags.Var(&trackedDuration{value: &o.ShutdownDelay, set: &o.ShutdownDelaySet}, "shutdown-delay-duration",
		"After SIGTERM, keep serving this long with /readyz failing, so that load balancers and kube-apiserver's "+
			"aggregator stop routing here first. Local mode defaults to 0.")
	shutdownFlags.DurationVar(&o.WatchTerminationGracePeriod, "shutdown-watch-termination-grace-period", o.WatchTerminationGracePeriod,
		"After the shutdown delay, how long open watches get to end cleanly (clients re-establish them elsewhere) before the server stops.")
	shutdownFlags.BoolVar(&o.SendRetryAfter, "shutdown-send-retry-after", o.SendRetryAfter,
		"While in-flight requests drain at shutdown, answer new ones with 429 and Retry-After rather than closing the listener.")
}

// Validate checks the values.
func (o *LifecycleOptions) Validate() []error {
	var errs []error
	for name, d := range map[string]time.Duration{
		"--shutdown-delay-duration": o.ShutdownDelay, "--shutdown-watch-termination-grace-period": o.WatchTerminationGracePeriod,
		"--etcd-request-timeout": o.EtcdRequestTimeout,
	} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, not %s", name, d))
		}
	}
	return errs
}

// ApplyTo sets the shutdown behaviour, bounds etcd requests and keeps etcd out of /livez: a liveness probe
// that fails with etcd would restart every replica during an etcd outage, which helps nothing (/readyz still
// checks etcd, so traffic goes elsewhere). Call it after the etcd options were applied.
func (o *LifecycleOptions) ApplyTo(c *genericapiserver.Config) {
	c.ShutdownDelayDuration = o.ShutdownDelay
	c.ShutdownWatchTerminationGracePeriod = o.WatchTerminationGracePeriod
	c.ShutdownSendRetryAfter = o.SendRetryAfter
	c.RESTOptionsGetter = deadline.RESTOptionsGetter{RESTOptionsGetter: c.RESTOptionsGetter, Timeout: o.EtcdRequestTimeout}
	c.LivezChecks = slices.DeleteFunc(c.LivezChecks, func(h healthz.HealthChecker) bool { return h.Name() == "etcd" })
}

// gateOnAuthenticationBundles holds requests off with 503 until the client CA bundles of delegated
// authentication are loaded (package authgate).
func (o *Options) gateOnAuthenticationBundles(ctx context.Context, c *genericapiserver.RecommendedConfig) error {
	auth := o.RecommendedOptions.Authentication
	if auth == nil {
		return nil
	}
	b := authgate.Bundles{All: c.SecureServing.ClientCA}
	if c.Authentication.RequestHeaderConfig != nil {
		b.RequestHeader = c.Authentication.RequestHeaderConfig.CAContentProvider
	}
	switch {
	case auth.ClientCert.ClientCA != "":
		b.WantClientCA = true
	case !auth.SkipInClusterLookup && c.ClientConfig != nil:
		client, err := kubernetes.NewForConfig(c.ClientConfig)
		if err != nil {
			return fmt.Errorf("client for the authentication ConfigMap: %w", err)
		}
		if b.WantClientCA, err = authgate.ClusterPublishesClientCA(ctx, client); err != nil {
			klog.InfoS("Not waiting for a client CA: cannot tell whether the cluster publishes one", "err", err)
		}
	}
	gate := authgate.New(b)
	chain := c.BuildHandlerChainFunc
	c.BuildHandlerChainFunc = func(h http.Handler, gc *genericapiserver.Config) http.Handler {
		return gate.WithGate(chain(h, gc), gc.Serializer)
	}
	c.AddReadyzChecks(gate.ReadyzCheck())
	return nil
}

// trackedDuration is a duration flag that records whether it was given.
type trackedDuration struct {
	value *time.Duration
	set   *bool
}

func (d *trackedDuration) String() string { return d.value.String() }
func (d *trackedDuration) Type() string   { return "duration" }

func (d *trackedDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d.value, *d.set = v, true
	return nil
}
