// Package server holds the options of aim-apiserver, their validation, and the command that runs it in local
// or cluster mode.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"path/filepath"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"

	// JSON logs (--logging-format=json) for log pipelines.
	_ "k8s.io/component-base/logs/json/register"
	netutils "k8s.io/utils/net"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller"
	"github.com/aim-apiserver/aim-apiserver/pkg/declared"
	"github.com/aim-apiserver/aim-apiserver/pkg/embeddedetcd"
	"github.com/aim-apiserver/aim-apiserver/pkg/frontproxy"
	"github.com/aim-apiserver/aim-apiserver/pkg/localmode"
	"github.com/aim-apiserver/aim-apiserver/pkg/storage/compression"
	"github.com/aim-apiserver/aim-apiserver/pkg/version"
)

func init() {
	// The logging options' own feature gates (as kube-apiserver registers them), for --logging-format and friends.
	utilruntime.Must(logsapi.AddFeatureGates(utilfeature.DefaultMutableFeatureGate))
}

// Options are every flag of aim-apiserver.
type Options struct {
	RecommendedOptions *genericoptions.RecommendedOptions
	Lifecycle          *LifecycleOptions
	Local              *LocalOptions
	Controller         *ControllerOptions
	Logs               *logsapi.LoggingConfiguration
	ServingCert        *ServingCertOptions
	// DefaultRuntimeConfigMap is namespace/name of the ConfigMap declaring the default runtime config.
	DefaultRuntimeConfigMap string
	// ClusterModelSourceMap is namespace/name of the ConfigMap declaring an AIMClusterModelSource.
	ClusterModelSourceMap string
	// PrintVersion makes the command print its version and exit.
	PrintVersion bool
	// StorageCompression is how stored values are compressed (compression.Zstd or None).
	StorageCompression string
	// MemoryLimitRatio is the share of the container's memory limit the Go runtime keeps under; 0 is off.
	MemoryLimitRatio float64

	StdOut io.Writer
}

// LocalOptions configure local mode: one process with embedded etcd, loopback only, client-certificate auth.
type LocalOptions struct {
	Enabled bool
	// DataDir holds etcd data, certificates and the kubeconfig.
	DataDir string
	// UnsafeNoFsync makes the embedded etcd skip fsync; for tests only.
	UnsafeNoFsync bool
	// authorizationKubeconfig is --authorization-kubeconfig as given, kept by Complete for Validate.
	authorizationKubeconfig string
}

// ControllerOptions configure the embedded controller.
type ControllerOptions struct {
	controller.Options
	// Run turns the controller on; it is on by default in cluster mode.
	Run bool
	// WorkloadKubeconfig points local mode's controller at a cluster.
	WorkloadKubeconfig string
}

// NewOptions returns the defaults: cluster mode, v1alpha1 as storage version.
func NewOptions(out io.Writer) *Options {
	o := &Options{
		// The etcd options are replaced below by NewEtcdOptions, which carry the storage codec.
		RecommendedOptions: genericoptions.NewRecommendedOptions(apiserver.EtcdPathPrefix, nil),
		Lifecycle:          NewLifecycleOptions(),
		Local:              &LocalOptions{},
		Controller:         &ControllerOptions{Options: controller.DefaultOptions(), Run: true},
		Logs:               logsapi.NewLoggingConfiguration(),
		ServingCert:        &ServingCertOptions{APIService: v1alpha1.SchemeGroupVersion.Version + "." + aim.GroupName},
		StorageCompression: compression.Zstd,
		MemoryLimitRatio:   DefaultMemoryLimitRatio,
		StdOut:             out,
	}
	o.RecommendedOptions.Etcd = apiserver.NewEtcdOptions()
	return o
}

// Flags returns the flags grouped for --help.
func (o *Options) Flags() cliflag.NamedFlagSets {
	var fss cliflag.NamedFlagSets
	fs := fss.FlagSet("local mode")
	fs.BoolVar(&o.Local.Enabled, "local", o.Local.Enabled,
		"Run on this machine without a cluster: embedded etcd under --data-dir, serving on 127.0.0.1 only, "+
			"with a generated client certificate written to <data-dir>/kubeconfig.")
	fs.StringVar(&o.Local.DataDir, "data-dir", o.Local.DataDir,
		"Directory for local mode's etcd data, certificates and kubeconfig. Restarting with the same directory keeps every object.")
	fs.BoolVar(&o.Local.UnsafeNoFsync, "local-etcd-unsafe-no-fsync", o.Local.UnsafeNoFsync,
		"Skip fsync in the embedded etcd. Faster, loses data on a crash: for throwaway test data only.")

	c := o.Controller
	fs = fss.FlagSet("controller")
	fs.BoolVar(&c.Run, "run-controller", c.Run,
		"Run the embedded controller. In local mode it runs only with --workload-kubeconfig.")
	fs.StringVar(&c.WorkloadKubeconfig, "workload-kubeconfig", c.WorkloadKubeconfig,
		"Local mode: kubeconfig of the cluster whose Nodes, Jobs and Pods the controller reads and manages.")
	mo := &c.Manager
	fs.IntVar(&mo.Workers, "controller-workers", mo.Workers, "Workers per controller.")
	fs.Float32Var(&mo.KubeQPS, "controller-kube-api-qps", mo.KubeQPS,
		"Requests per second the controller may send to the cluster's kube-apiserver (Events, Jobs, InferenceServices, ...).")
	fs.IntVar(&mo.KubeBurst, "controller-kube-api-burst", mo.KubeBurst, "Burst above --controller-kube-api-qps.")
	fs.DurationVar(&mo.ResyncPeriod, "controller-resync-period", mo.ResyncPeriod,
		"How often every object is re-checked; unchanged objects cause no writes.")
	fs.StringVar(&mo.SystemNamespace, "system-namespace", mo.SystemNamespace,
		"Namespace of discovery Jobs for cluster templates and of the pull secrets of cluster models and model sources (default: $AIM_SYSTEM_NAMESPACE as aim-engine reads it, else $POD_NAMESPACE, else the pod's service account's namespace, else aim-system).")
	fs.StringVar(&mo.LeaseNamespace, "leader-elect-resource-namespace", mo.LeaseNamespace,
		"Namespace of the leader-election Lease (default: $POD_NAMESPACE, else the pod's service account's namespace, else --system-namespace).")
	fs.BoolVar(&mo.LeaderElect, "leader-elect", mo.LeaderElect,
		"Elect a leader among replicas through a Lease; only the leader reconciles.")
	fs.DurationVar(&mo.LeaseDuration, "leader-elect-lease-duration", mo.LeaseDuration, "How long a leader's Lease lasts without renewal.")
	fs.DurationVar(&mo.RenewDeadline, "leader-elect-renew-deadline", mo.RenewDeadline, "How long the leader tries to renew before giving up.")
	fs.DurationVar(&mo.RetryPeriod, "leader-elect-retry-period", mo.RetryPeriod, "How often candidates try to take the Lease.")
	fs.DurationVar(&c.DiscoveryBackoff.Base, "discovery-backoff-base", c.DiscoveryBackoff.Base,
		"Wait after the first failed discovery attempt; it doubles with each further failure.")
	fs.DurationVar(&c.DiscoveryBackoff.Max, "discovery-backoff-max", c.DiscoveryBackoff.Max, "Longest wait between discovery attempts.")
	fs.StringVar(&o.DefaultRuntimeConfigMap, "default-runtime-config-configmap", o.DefaultRuntimeConfigMap,
		"namespace/name of a ConfigMap whose key "+declared.SpecKey+" (YAML) is the spec of the "+
			"AIMClusterRuntimeConfig \"default\": applied once the API serves and whenever the ConfigMap changes "+
			"(server-side apply, field manager "+declared.RuntimeConfig.FieldManager+"). A missing ConfigMap is no error. Cluster mode only.")
	fs.StringVar(&o.ClusterModelSourceMap, "cluster-model-source-configmap", o.ClusterModelSourceMap,
		"namespace/name of a ConfigMap declaring an AIMClusterModelSource: key "+declared.NameKey+" its name, key "+
			declared.SpecKey+" (YAML) its spec; applied as --default-runtime-config-configmap's (field manager "+
			declared.ModelSource.FieldManager+"). Cluster mode only.")
	fs.StringSliceVar(&c.ImageMetadataRegistries, "image-metadata-registries", c.ImageMetadataRegistries,
		"Registries (host or host:port) the controller may read model image labels from; * allows any. "+
			"Models of other registries need spec.imageMetadata.")
	fs.StringVar(&c.RegistryConfig, "registry-config", c.RegistryConfig,
		"YAML file of registry mirrors (docs/air-gapped.md): for each registry host, the mirrors the controller reads "+
			"image labels, tags and catalogs from, in order, before the registry itself. Read again when it changes.")

	r := o.RecommendedOptions
	r.Etcd.AddFlags(fss.FlagSet("etcd"))
	apiserver.AddStorageCompressionFlag(fss.FlagSet("etcd"), &o.StorageCompression)
	o.Lifecycle.AddFlags(fss.FlagSet("etcd"), fss.FlagSet("shutdown"))
	r.SecureServing.AddFlags(fss.FlagSet("secure serving"))
	o.ServingCert.AddFlags(fss.FlagSet("secure serving"))
	r.Authentication.AddFlags(fss.FlagSet("authentication"))
	r.Authorization.AddFlags(fss.FlagSet("authorization"))
	r.Audit.AddFlags(fss.FlagSet("auditing"))
	r.Features.AddFlags(fss.FlagSet("features"))
	r.CoreAPI.AddFlags(fss.FlagSet("kubernetes api"))
	r.Admission.AddFlags(fss.FlagSet("admission"))
	r.EgressSelector.AddFlags(fss.FlagSet("egress selector"))
	r.Traces.AddFlags(fss.FlagSet("traces"))
	logsapi.AddFlags(o.Logs, fss.FlagSet("logging"))
	fss.FlagSet("global").BoolVar(&o.PrintVersion, "version", false, "Print the version of aim-apiserver and exit.")
	fss.FlagSet("global").Float64Var(&o.MemoryLimitRatio, "memory-limit-ratio", o.MemoryLimitRatio,
		"Keep the Go runtime's memory under this share of the container's memory limit (GOMEMLIMIT, followed as the "+
			"limit changes), so that the garbage collector works harder near the limit rather than the pod being "+
			"OOM-killed; 0 turns it off. $GOMEMLIMIT, when set, wins.")
	return fss
}

// Complete adjusts the options for the chosen mode. Local mode needs no cluster: no delegated authentication
// or authorization, no admission plugins that watch a cluster, no priority-and-fairness, no garbage collector.
func (o *Options) Complete() error {
	if !o.Local.Enabled {
		return nil
	}
	r := o.RecommendedOptions
	r.SecureServing.BindAddress = netutils.ParseIPSloppy("127.0.0.1")
	if o.Local.DataDir != "" {
		r.SecureServing.ServerCert.CertDirectory = filepath.Join(o.Local.DataDir, "certs")
	}
	// Validate refuses it: local mode has no kube-apiserver to delegate authorization to.
	o.Local.authorizationKubeconfig = r.Authorization.RemoteKubeConfigFile
	// Authentication and authorization are built from the local client CA in Config, without anonymous access
	// and without a kube-apiserver to delegate to.
	r.Authentication = nil
	r.Authorization = nil
	r.CoreAPI = nil
	r.Admission = nil
	r.Features.EnablePriorityAndFairness = false
	// Without kube-controller-manager nobody would remove the garbage collector's finalizers.
	r.Etcd.EnableGarbageCollection = false
	// Nothing routes to local mode through a load balancer: stop at once unless asked otherwise.
	if !o.Lifecycle.ShutdownDelaySet {
		o.Lifecycle.ShutdownDelay = 0
	}
	return nil
}

// Validate checks the options after Complete.
func (o *Options) Validate() error {
	var errs []error
	if o.Local.Enabled {
		if o.Local.DataDir == "" {
			errs = append(errs, errors.New("--data-dir is required with --local"))
		}
		if ip := o.RecommendedOptions.SecureServing.BindAddress; !ip.IsLoopback() {
			errs = append(errs, fmt.Errorf("local mode serves on loopback only, not %s", ip))
		}
		if o.Local.authorizationKubeconfig != "" {
			errs = append(errs, errors.New("--authorization-kubeconfig is a cluster-mode flag; local mode authorizes its own client certificate"))
		}
	} else {
		if len(o.RecommendedOptions.Etcd.StorageConfig.Transport.ServerList) == 0 {
			errs = append(errs, errors.New("--etcd-servers is required in cluster mode (or run with --local)"))
		}
		if o.Local.UnsafeNoFsync {
			errs = append(errs, errors.New("--local-etcd-unsafe-no-fsync needs --local"))
		}
	}
	if o.Local.Enabled && len(o.RecommendedOptions.Etcd.StorageConfig.Transport.ServerList) > 0 {
		errs = append(errs, errors.New("--etcd-servers and --local are exclusive: local mode embeds its own etcd"))
	}
	if r := o.MemoryLimitRatio; math.IsNaN(r) || r < 0 || r > 1 {
		errs = append(errs, fmt.Errorf("--memory-limit-ratio must be from 0 (off) to 1, not %v", r))
	}
	if o.controllerEnabled() {
		if err := o.Controller.Options.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range o.declaredFlags() {
		if d.ref == "" {
			continue
		}
		if _, err := namespacedName("--"+d.flag, d.ref); err != nil {
			errs = append(errs, err)
		}
		if o.Local.Enabled {
			errs = append(errs, fmt.Errorf("--%s is a cluster-mode flag", d.flag))
		}
	}
	if !o.Local.Enabled && o.Controller.WorkloadKubeconfig != "" {
		errs = append(errs, errors.New("--workload-kubeconfig is for local mode; in cluster mode the controller uses --kubeconfig"))
	}
	r := o.RecommendedOptions
	etcd := *r.Etcd
	if o.Local.Enabled {
		// The embedded etcd's address is only known once it runs; validate the rest of the etcd options.
		etcd.StorageConfig.Transport.ServerList = []string{"https://127.0.0.1"}
	}
	errs = append(errs, etcd.Validate()...)
	if err := compression.Validate(o.StorageCompression); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, r.SecureServing.Validate()...)
	errs = append(errs, o.ServingCert.Validate(o.Local.Enabled, r.SecureServing)...)
	errs = append(errs, r.Authentication.Validate()...)
	errs = append(errs, r.Authorization.Validate()...)
	errs = append(errs, r.Audit.Validate()...)
	errs = append(errs, r.Features.Validate()...)
	errs = append(errs, r.CoreAPI.Validate()...)
	errs = append(errs, r.Admission.Validate()...)
	errs = append(errs, o.Lifecycle.Validate()...)
	return errors.Join(errs...)
}

// runningConfig is a server configuration plus what local mode started to support it.
type runningConfig struct {
	config    *apiserver.Config
	etcd      *embeddedetcd.Server
	localAuth *localAuth
}

// close stops what Config started; call it after the server has stopped.
func (c *runningConfig) close() {
	if c.etcd != nil {
		c.etcd.Close()
	}
}

// config builds the server configuration. In local mode it first starts the embedded etcd, because the
// storage factory reads the etcd address when options are applied.
func (o *Options) config(ctx context.Context) (_ *runningConfig, err error) {
	rc := &runningConfig{}
	defer func() {
		if err != nil {
			rc.close()
		}
	}()
	r := o.RecommendedOptions
	if o.Local.Enabled {
		pki, err := localmode.EnsureEtcdPKI(filepath.Join(o.Local.DataDir, "etcd-pki"))
		if err != nil {
			return nil, fmt.Errorf("preparing the embedded etcd's PKI: %w", err)
		}
		rc.etcd, err = embeddedetcd.Start(ctx, embeddedetcd.Options{
			Dir: filepath.Join(o.Local.DataDir, "etcd"), UnsafeNoFsync: o.Local.UnsafeNoFsync,
			CAFile: pki.CAFile, CertFile: pki.ServerCertFile, KeyFile: pki.ServerKeyFile,
		})
		if err != nil {
			return nil, err
		}
		t := &r.Etcd.StorageConfig.Transport
		t.ServerList = []string{rc.etcd.ClientURL()}
		t.TrustedCAFile, t.CertFile, t.KeyFile = pki.CAFile, pki.ClientCertFile, pki.ClientKeyFile
	}

	// With --serving-cert-secret the certificate comes from the cluster once the options are applied (below).
	if o.ServingCert.Secret == "" {
		if err := r.SecureServing.MaybeDefaultWithSelfSignedCerts("localhost", nil,
			[]net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
			return nil, fmt.Errorf("creating self-signed serving certificate: %w", err)
		}
	}

	serverConfig := genericapiserver.NewRecommendedConfig(apiserver.Codecs)
	serverConfig.OpenAPIConfig = apiserver.OpenAPIConfig()
	serverConfig.OpenAPIV3Config = apiserver.OpenAPIV3Config()
	serverConfig.EffectiveVersion = version.Effective()

	if err := apiserver.ApplyStorageCodec(r.Etcd); err != nil {
		return nil, err
	}
	if err := r.ApplyTo(serverConfig); err != nil {
		return nil, fmt.Errorf("applying options: %w", err)
	}
	if o.ServingCert.Secret != "" {
		// The server keeps its own certificate in a Secret and the APIService's caBundle (pkg/servingcert),
		// reaching kube-apiserver as the rest of the server does (--kubeconfig, else the pod's service account).
		if serverConfig.SecureServing.Cert, err = o.ServingCert.start(ctx, serverConfig.ClientConfig); err != nil {
			return nil, err
		}
	}
	if serverConfig.RESTOptionsGetter, err = compression.Getter(serverConfig.RESTOptionsGetter, o.StorageCompression); err != nil {
		return nil, err
	}
	if a := &serverConfig.Authentication; a.RequestHeaderConfig != nil && a.Authenticator != nil {
		a.Authenticator = frontproxy.Authenticator(a.RequestHeaderConfig, a.Authenticator)
	}
	o.Lifecycle.ApplyTo(&serverConfig.Config)
	if o.Local.Enabled {
		rc.localAuth, err = applyLocalAuthentication(o.Local.DataDir, serverConfig)
		if err != nil {
			return nil, err
		}
	} else if err := o.gateOnAuthenticationBundles(ctx, serverConfig); err != nil {
		return nil, err
	}
	rc.config = &apiserver.Config{GenericConfig: serverConfig}
	for _, d := range o.declaredFlags() {
		if d.ref == "" || serverConfig.ClientConfig == nil {
			continue
		}
		cm, err := namespacedName("--"+d.flag, d.ref)
		if err != nil {
			return nil, err
		}
		rc.config.Declared = append(rc.config.Declared, apiserver.Declared{Kind: d.kind, ConfigMap: cm, KubeConfig: serverConfig.ClientConfig})
	}
	if o.Local.Enabled && !o.controllerEnabled() {
		rc.config.NoControllerNote = noControllerNote
	}
	if o.controllerEnabled() {
		kube := serverConfig.ClientConfig
		if o.Local.Enabled {
			kube, err = clientcmd.BuildConfigFromFlags("", o.Controller.WorkloadKubeconfig)
			if err != nil {
				return nil, fmt.Errorf("reading --workload-kubeconfig: %w", err)
			}
		}
		if kube == nil {
			return nil, errors.New("the controller needs a cluster: set --kubeconfig, or run in a pod")
		}
		rc.config.Controller = &apiserver.ControllerConfig{Options: o.Controller.Options, KubeConfig: kube}
	}
	return rc, nil
}

// controllerEnabled: on in cluster mode, and in local mode only when pointed at a cluster.
func (o *Options) controllerEnabled() bool {
	return o.Controller.Run && (!o.Local.Enabled || o.Controller.WorkloadKubeconfig != "")
}

// declaredFlag is a flag naming a ConfigMap that declares an object of a kind.
type declaredFlag struct {
	flag, ref string
	kind      declared.Kind
}

func (o *Options) declaredFlags() []declaredFlag {
	return []declaredFlag{{"default-runtime-config-configmap", o.DefaultRuntimeConfigMap, declared.RuntimeConfig},
		{"cluster-model-source-configmap", o.ClusterModelSourceMap, declared.ModelSource}}
}
