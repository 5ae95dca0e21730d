package migrate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	genericoptions "k8s.io/apiserver/pkg/server/options"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
	"github.com/aim-apiserver/aim-apiserver/pkg/storage/compression"
)

// Options configure a migration from aim-engine's CRDs to aim-apiserver, or its rollback.
type Options struct {
	// Kubeconfig reaches the cluster as an administrator; empty uses the in-cluster config or $KUBECONFIG.
	Kubeconfig string
	// Etcd is aim-apiserver's storage, exactly as the server is configured (--etcd-* flags).
	Etcd *genericoptions.EtcdOptions
	// StorageCompression is the server's --storage-compression.
	StorageCompression string
	// KubeEtcd is kube-apiserver's etcd, needed only by --rollback after the switch: custom resources can only
	// be given back their UIDs by writing them into the CRDs' storage.
	KubeEtcd KubeEtcdOptions

	BackupDir    string
	DryRun       bool
	Force        bool
	AllowInvalid bool
	Rollback     bool
	// Yes skips the confirmation; In is where it is read from otherwise.
	Yes bool
	In  io.Reader
	// GitOpsPaused says that GitOps tools that manage aim-engine no longer sync it.
	GitOpsPaused bool

	// EngineDeployments are aim-engine's controller Deployments (namespace/name); empty finds them by image.
	EngineDeployments []string
	// Service is aim-apiserver's Service (namespace/name) the APIService is switched to, on Port.
	Service string
	Port    int32
	// ServingSecret holds ca.crt, the CA of aim-apiserver's serving certificate, for the APIService's caBundle.
	ServingSecret string
	// SystemNamespace is aim-apiserver's --system-namespace, where it reads the pull secrets of cluster models and
	// model sources; empty is what the pods behind Service run with, else their namespace.
	SystemNamespace string
	// Timeout bounds each wait: the APIService becoming Available, CRDs going away, the CRDs' OpenAPI after a
	// rollback.
	Timeout time.Duration

	Out io.Writer
}

// KubeEtcdOptions reach kube-apiserver's etcd.
type KubeEtcdOptions struct {
	Servers  []string
	CAFile   string
	CertFile string
	KeyFile  string
	Prefix   string
}

// NewOptions returns the defaults: the names artifacts/deploy and the Helm chart use.
func NewOptions(out io.Writer) *Options {
	etcd := apiserver.NewEtcdOptions()
	// The migration reads and writes single objects: no watch cache, no object count metrics (there is no
	// metrics registry in a one-off command).
	etcd.EnableWatchCache = false
	etcd.StorageConfig.CountMetricPollPeriod = 0
	return &Options{
		Etcd:               etcd,
		StorageCompression: compression.Zstd,
		KubeEtcd:           KubeEtcdOptions{Prefix: "/registry"},
		BackupDir:          "aim-migration-backup",
		Service:            "aim-system/aim-apiserver",
		Port:               443,
		ServingSecret:      "aim-system/aim-apiserver-serving-cert",
		Timeout:            5 * time.Minute,
		Out:                out,
		In:                 os.Stdin,
	}
}

// Flags returns the flags grouped for --help.
func (o *Options) Flags() cliflag.NamedFlagSets {
	var fss cliflag.NamedFlagSets
	fs := fss.FlagSet("migration")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Kubeconfig of a cluster administrator; empty uses $KUBECONFIG or the in-cluster config.")
	fs.StringVar(&o.BackupDir, "backup-dir", o.BackupDir,
		"Directory for the backup of everything read before anything changes; a second run resumes from it and --rollback restores it.")
	fs.BoolVar(&o.DryRun, "dry-run", o.DryRun, "Run the preflight checks, validate every object and print the plan; change nothing.")
	fs.BoolVar(&o.Force, "force", o.Force, "Migrate even though an aim-engine controller still runs (it would keep writing to the CRDs).")
	fs.BoolVar(&o.AllowInvalid, "allow-invalid", o.AllowInvalid,
		"Store objects that fail aim-apiserver's validation as they are (listed, and an AIMService's status reports it) instead of stopping before the switch.")
	fs.BoolVar(&o.Yes, "yes", o.Yes, "Do not ask for confirmation (a Job, a script); without it migrate names the cluster and waits for \"yes\".")
	fs.BoolVar(&o.GitOpsPaused, "gitops-paused", o.GitOpsPaused,
		"Go on although Argo CD or Flux manages aim-engine's Deployment or CRDs: you have stopped them syncing it (or they would bring aim-engine back).")
	fs.BoolVar(&o.Rollback, "rollback", o.Rollback,
		"Give the API group back to aim-engine's CRDs, with the same UIDs. After the switch this needs --kube-etcd-servers.")
	fs.StringSliceVar(&o.EngineDeployments, "engine-deployment", o.EngineDeployments,
		"aim-engine's controller Deployment as namespace/name (repeatable); by default every Deployment running an aim-engine image.")
	fs.StringVar(&o.Service, "service", o.Service, "aim-apiserver's Service (namespace/name) the APIService is switched to.")
	fs.Int32Var(&o.Port, "service-port", o.Port, "Port of aim-apiserver's Service.")
	fs.StringVar(&o.ServingSecret, "serving-secret", o.ServingSecret,
		"Secret (namespace/name) whose ca.crt signed aim-apiserver's serving certificate; it becomes the APIService's caBundle.")
	fs.StringVar(&o.SystemNamespace, "system-namespace", o.SystemNamespace,
		"aim-apiserver's --system-namespace (its $AIM_SYSTEM_NAMESPACE), where it reads the pull secrets of cluster models and model sources; default: what the pods behind --service run with, else their namespace.")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "How long to wait for the APIService to become Available, for the CRDs to go, and after --rollback for kube-apiserver to serve the CRDs' OpenAPI.")

	// The server's own flag names, for the settings that say where its objects are; the rest of the server's
	// etcd flags (watch cache, compaction, ...) do not apply to a one-off copy.
	fs = fss.FlagSet("storage (aim-apiserver's etcd, as the server's flags)")
	t := &o.Etcd.StorageConfig.Transport
	fs.StringSliceVar(&t.ServerList, "etcd-servers", t.ServerList, "aim-apiserver's etcd servers (scheme://ip:port), comma separated.")
	fs.StringVar(&t.TrustedCAFile, "etcd-cafile", t.TrustedCAFile, "CA of aim-apiserver's etcd.")
	fs.StringVar(&t.CertFile, "etcd-certfile", t.CertFile, "Client certificate for aim-apiserver's etcd.")
	fs.StringVar(&t.KeyFile, "etcd-keyfile", t.KeyFile, "Key of --etcd-certfile.")
	fs.StringVar(&o.Etcd.StorageConfig.Prefix, "etcd-prefix", o.Etcd.StorageConfig.Prefix, "aim-apiserver's --etcd-prefix.")
	apiserver.AddStorageCompressionFlag(fs, &o.StorageCompression)
	fs.StringVar(&o.Etcd.EncryptionProviderConfigFilepath, "encryption-provider-config", o.Etcd.EncryptionProviderConfigFilepath,
		"The server's --encryption-provider-config: objects are written encrypted as the server writes them (KMS providers need the plugin's socket here too).")

	fs = fss.FlagSet("rollback (kube-apiserver's etcd)")
	k := &o.KubeEtcd
	fs.StringSliceVar(&k.Servers, "kube-etcd-servers", k.Servers, "kube-apiserver's etcd, for --rollback after the switch.")
	fs.StringVar(&k.CAFile, "kube-etcd-cafile", k.CAFile, "CA of kube-apiserver's etcd.")
	fs.StringVar(&k.CertFile, "kube-etcd-certfile", k.CertFile, "Client certificate for kube-apiserver's etcd.")
	fs.StringVar(&k.KeyFile, "kube-etcd-keyfile", k.KeyFile, "Key of --kube-etcd-certfile.")
	fs.StringVar(&k.Prefix, "kube-etcd-prefix", k.Prefix, "kube-apiserver's --etcd-prefix.")
	return fss
}

// Validate checks the options.
func (o *Options) Validate() error {
	var errs []error
	if len(o.Etcd.StorageConfig.Transport.ServerList) == 0 {
		errs = append(errs, errors.New("--etcd-servers is required: aim-apiserver's etcd, where the objects are copied"))
	}
	errs = append(errs, o.Etcd.Validate()...)
	if err := compression.Validate(o.StorageCompression); err != nil {
		errs = append(errs, err)
	}
	for _, ref := range append([]string{o.Service, o.ServingSecret}, o.EngineDeployments...) {
		if _, _, err := splitRef(ref); err != nil {
			errs = append(errs, err)
		}
	}
	if o.BackupDir == "" {
		errs = append(errs, errors.New("--backup-dir is required"))
	}
	if o.Rollback && (o.DryRun || o.AllowInvalid || o.Force) {
		errs = append(errs, errors.New("--rollback takes none of --dry-run, --allow-invalid and --force"))
	}
	return errors.Join(errs...)
}

// splitRef splits namespace/name.
func splitRef(ref string) (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(ref, "/")
	if !ok || namespace == "" || name == "" {
		return "", "", fmt.Errorf("%q: want namespace/name", ref)
	}
	return namespace, name, nil
}
