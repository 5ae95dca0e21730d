package etcd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/aim-apiserver/aim-apiserver/pkg/etcdmaintenance"
)

// bucketFlags name the S3-compatible bucket snapshots are copied to and restored from.
type bucketFlags struct{ etcdmaintenance.BucketConfig }

func (b *bucketFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&b.Name, "s3-bucket", "", "S3-compatible bucket of the snapshots. Credentials: AWS_ACCESS_KEY_ID and "+
		"AWS_SECRET_ACCESS_KEY, or the AWS SDK's default chain (web identity, EKS Pod Identity, instance role).")
	fs.StringVar(&b.Prefix, "s3-prefix", "", "Folder of the snapshots in the bucket.")
	fs.StringVar(&b.Endpoint, "s3-endpoint", "", "URL of an S3-compatible service (MinIO, Ceph RGW, ...); empty: AWS S3.")
	fs.StringVar(&b.Region, "s3-region", "", "Region of the bucket; empty: AWS_REGION, else us-east-1.")
	fs.BoolVar(&b.PathStyle, "s3-path-style", false, "Address the bucket as <endpoint>/<bucket> (most S3-compatible services).")
}

// open returns the bucket, or nil when none is named.
func (b *bucketFlags) open(ctx context.Context) (*etcdmaintenance.Bucket, error) {
	if b.Name == "" {
		return nil, nil
	}
	return etcdmaintenance.NewBucket(ctx, b.BucketConfig)
}

func newSnapshotCommand(out io.Writer) *cobra.Command {
	var conn connection
	var bucketFlags bucketFlags
	var dir string
	var keep int
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Save a snapshot of aim-apiserver's etcd into a directory and keep the newest ones",
		Long: `snapshot takes a snapshot with etcd's snapshot API (what etcdctl snapshot save writes, so etcdutl can
restore one as a whole), checks that it reads back, writes it as aim-etcd-<UTC time>.db into --dir and deletes
the oldest snapshots beyond --keep. With --s3-bucket it then copies the snapshot into the bucket and keeps the
newest --keep there too, so that backups outlive the cluster. The chart's backup CronJob runs it. It reads from
the first of --etcd-servers.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("--dir is required")
			}
			bucket, err := bucketFlags.open(cmd.Context())
			if err != nil {
				return err
			}
			// The client only checks that etcd answers: the snapshot takes a connection of its own, to one member.
			return conn.withClient(cmd.Context(), func(ctx context.Context, _ *clientv3.Client) error {
				cfg, err := conn.config()
				if err != nil {
					return err
				}
				cfg.Endpoints = cfg.Endpoints[:1]
				s, err := etcdmaintenance.Save(ctx, cfg, dir, conn.prefix, keep, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "saved %s: %s, revision %d, %d keys under %s\n", s.Path, mib(s.Size), s.Revision, s.Objects, conn.prefix)
				for _, p := range s.Removed {
					fmt.Fprintf(out, "removed %s (keeping the newest %d)\n", p, keep)
				}
				if bucket == nil {
					return nil
				}
				removed, err := s.CopyTo(ctx, bucket, keep)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "copied to %s%s\n", bucket.URL(), filepath.Base(s.Path))
				for _, name := range removed {
					fmt.Fprintf(out, "removed %s%s (keeping the newest %d)\n", bucket.URL(), name, keep)
				}
				return nil
			})
		},
	}
	conn.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&dir, "dir", "", "Directory of the snapshots (a mounted volume).")
	cmd.Flags().IntVar(&keep, "keep", 14, "How many snapshots to keep, in --dir and in the bucket; 0 keeps all.")
	bucketFlags.addFlags(cmd.Flags())
	return cmd
}

func newRestoreCommand(out io.Writer) *cobra.Command {
	var conn connection
	var bucketFlags bucketFlags
	var dir, file string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Write the AIM objects of a snapshot back into etcd, with their UIDs",
		Long: `restore reads a snapshot (--snapshot, or the newest of --dir; with --s3-bucket, of the bucket, downloaded
into --dir first) and writes every AIM object it holds that etcd lacks back under its key, with the stored value
as it is: UIDs, owner references, finalizers and status come back unchanged, so the garbage collector keeps the InferenceServices, PVCs and Jobs they own. Objects that
exist are never overwritten (they are listed when they differ). Only keys under --etcd-prefix are touched, and
etcd's revision moves forward, so clients' resourceVersions never go back.

Stop aim-apiserver first (kubectl -n aim-system scale deployment/aim-apiserver --replicas=0) and start it again
after: while it is stopped the APIService is unavailable and the garbage collector leaves the objects' children
alone; a server serving an empty store meanwhile would let it delete them. See docs/operations.md.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := file
			bucket, err := bucketFlags.open(cmd.Context())
			switch {
			case err != nil:
				return err
			case bucket != nil:
				if dir == "" {
					return errors.New("--dir is required with --s3-bucket: the snapshot is downloaded there")
				}
				if path, err = bucket.Download(cmd.Context(), file, dir); err != nil {
					return err
				}
				fmt.Fprintf(out, "downloaded %s%s into %s\n", bucket.URL(), filepath.Base(path), dir)
			case path == "":
				if dir == "" {
					return errors.New("--snapshot or --dir is required")
				}
				all, err := etcdmaintenance.Snapshots(dir)
				if err != nil {
					return err
				}
				if len(all) == 0 {
					return fmt.Errorf("no snapshot (aim-etcd-*.db) in %s", dir)
				}
				path = all[len(all)-1]
			case dir != "" && filepath.Base(path) == path:
				path = filepath.Join(dir, path)
			}
			content, err := etcdmaintenance.Read(path, conn.prefix)
			if err != nil {
				return err
			}
			return conn.withClient(cmd.Context(), func(ctx context.Context, c *clientv3.Client) error {
				fmt.Fprintf(out, "restoring %d keys under %s from %s (revision %d)%s\n", len(content.KVs), conn.prefix, path,
					content.Revision, map[bool]string{true: " (dry run)"}[dryRun])
				r, err := etcdmaintenance.Restore(ctx, c, content, dryRun)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "written %d, present already %d, leased (not restored) %d, present with another value %d\n",
					r.Written, r.Unchanged, r.Leased, len(r.Differ))
				for _, k := range r.Differ {
					fmt.Fprintf(out, "  kept as it is: %s\n", k)
				}
				return nil
			})
		},
	}
	conn.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&file, "snapshot", "", "Snapshot file; a bare name is looked up in --dir (or the bucket).")
	cmd.Flags().StringVar(&dir, "dir", "", "Directory of the snapshots; without --snapshot the newest is restored.")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "Say what would be written, write nothing.")
	bucketFlags.addFlags(cmd.Flags())
	return cmd
}

func newDefragCommand(out io.Writer) *cobra.Command {
	var conn connection
	minFree := int64(64 << 20)
	minFreeRatio := 0.3
	cmd := &cobra.Command{
		Use:   "defrag",
		Short: "Defragment etcd's members one at a time, the leader last, where compaction freed enough space",
		Long: `defrag gives the space that compaction freed back to the file system. Each member whose database has at
least --min-free bytes and --min-free-ratio of its size unused is defragmented, one at a time and the leader
last, as etcd's operations guide advises (a member blocks while it defragments). Members are reached at their
advertised client URLs. The chart's defrag CronJob runs it.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return conn.withClient(cmd.Context(), func(ctx context.Context, c *clientv3.Client) error {
				plan, err := etcdmaintenance.Defragment(ctx, c, minFree, minFreeRatio)
				for _, m := range plan {
					switch {
					case m.Skipped:
						fmt.Fprintf(out, "%s: %s of %s in use, skipped\n", m.Name, mib(m.InUse), mib(m.Size))
					case m.SizeAfter > 0:
						fmt.Fprintf(out, "%s: defragmented, %s -> %s\n", m.Name, mib(m.Size), mib(m.SizeAfter))
					}
				}
				return err
			})
		},
	}
	conn.addFlags(cmd.Flags())
	cmd.Flags().Int64Var(&minFree, "min-free", minFree, "Defragment a member only with at least this many bytes unused.")
	cmd.Flags().Float64Var(&minFreeRatio, "min-free-ratio", minFreeRatio, "... and at least this part of its database unused.")
	return cmd
}
