// Package migrate is the `aim-apiserver migrate` command: it moves a live aim-engine installation onto
// aim-apiserver (package pkg/migrate does the work; docs/migration.md explains it).
package migrate

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/aim-apiserver/aim-apiserver/pkg/migrate"
)

// NewCommand returns the migrate command.
func NewCommand(ctx context.Context, out io.Writer) *cobra.Command {
	o := migrate.NewOptions(out)
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Move aim-engine's AIM objects from its CRDs into aim-apiserver, keeping every UID and child",
		Long: `migrate moves a live aim-engine installation onto aim-apiserver without deleting a child object.

Install aim-apiserver first without its APIService (Helm: --set apiService.create=false) and scale aim-engine's
controller to zero. migrate then checks the cluster, backs up every AIM object, freezes writes to the CRDs,
copies every object into aim-apiserver's etcd with its UID, timestamps, generation, finalizers, owner
references, spec and status, switches the APIService v1alpha1.aim.eai.amd.com to aim-apiserver and removes the
CRDs so that the garbage collector never sees an owner missing. A second run after an interruption finishes
the job; --rollback gives the group back to the CRDs with the same UIDs. See docs/migration.md.`,
		SilenceUsage: true,
		Args:         cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return migrate.Run(cmd.Context(), o)
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
