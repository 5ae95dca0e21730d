package server

import (
	"context"
	"fmt"
	"net"
	"path/filepath"

	"github.com/spf13/cobra"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/localmode"
	"github.com/aim-apiserver/aim-apiserver/pkg/version"
)

// NewCommand returns the aim-apiserver command; it runs until ctx is cancelled.
func NewCommand(ctx context.Context, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "aim-apiserver",
		Short: "Serve the aim.eai.amd.com API (AMD Inference Microservices) from an aggregated API server",
		Long: `aim-apiserver serves the aim.eai.amd.com/v1alpha1 API from etcd.

In cluster mode it runs behind kube-apiserver through an APIService and delegates authentication and
authorization to it. With --local it runs on this machine alone: an embedded etcd under --data-dir,
serving on 127.0.0.1, with a kubeconfig for kubectl written to <data-dir>/kubeconfig.`,
		SilenceUsage: true,
		Args:         cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.PrintVersion {
				_, err := fmt.Fprintf(o.StdOut, "aim-apiserver %s\n", version.Get().GitVersion)
				return err
			}
			if err := logsapi.ValidateAndApply(o.Logs, utilfeature.DefaultFeatureGate); err != nil {
				return err
			}
			klog.InfoS("Starting aim-apiserver", "version", version.Get().GitVersion, "local", o.Local.Enabled)
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			setMemoryLimit(cmd.Context(), o.MemoryLimitRatio)
			return o.Run(cmd.Context())
		},
	}
	cmd.SetContext(ctx)
	fss := o.Flags()
	for _, fs := range fss.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cliflag.SetUsageAndHelpFunc(cmd, fss, 100)
	return cmd
}

// Run starts the server and blocks until ctx is cancelled and the server has drained.
func (o *Options) Run(ctx context.Context) error {
	installETCDGRPCLogger()
	rc, err := o.config(ctx)
	if err != nil {
		return err
	}
	defer rc.close()

	server, err := rc.config.Complete().New()
	if err != nil {
		return err
	}
	if o.Local.Enabled {
		if err := o.announceLocal(rc); err != nil {
			return err
		}
	}
	return server.GenericAPIServer.PrepareRun().RunWithContext(ctx)
}

// announceLocal writes the kubeconfig and tells the user how to reach the server.
func (o *Options) announceLocal(rc *runningConfig) error {
	addr := rc.config.GenericConfig.SecureServing.Listener.Addr().(*net.TCPAddr)
	url := fmt.Sprintf("https://127.0.0.1:%d", addr.Port)
	certDir := o.RecommendedOptions.SecureServing.ServerCert.CertDirectory
	servingCA := filepath.Join(certDir, o.RecommendedOptions.SecureServing.ServerCert.PairName+".crt")
	if f := o.RecommendedOptions.SecureServing.ServerCert.CertKey.CertFile; f != "" {
		servingCA = f
	}
	kubeconfig := filepath.Join(o.Local.DataDir, "kubeconfig")
	if err := localmode.WriteKubeconfig(kubeconfig, url, servingCA, rc.localAuth.pki); err != nil {
		return err
	}
	controller := "on, managing the cluster of " + o.Controller.WorkloadKubeconfig
	if !o.controllerEnabled() {
		controller = "off. " + noControllerNote
	}
	klog.InfoS("Local mode ready to serve", "url", url, "kubeconfig", kubeconfig, "etcd", rc.etcd.ClientURL(), "controller", controller)
	_, err := fmt.Fprintf(o.StdOut, `aim-apiserver (local mode) serving on %s
  data:       %s
  kubeconfig: %s
  controller: %s

Try:
  export KUBECONFIG=%s
  kubectl api-resources --api-group=aim.eai.amd.com
  kubectl apply -f artifacts/samples/
  kubectl get aim -A
`, url, o.Local.DataDir, kubeconfig, controller, kubeconfig)
	return err
}

// noControllerNote is what local mode says, in its banner and in the status of every object it creates, when no
// controller runs: nothing reconciles, and how to change that.
const noControllerNote = "No controller runs in local mode without --workload-kubeconfig: nothing reconciles AIM objects, " +
	"they stay Pending. Restart with --workload-kubeconfig=<kubeconfig of a cluster with KServe>, or run the whole " +
	"stack with make local-up."
