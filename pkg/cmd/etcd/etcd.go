// Package etcd is `aim-apiserver etcd`: the commands that keep aim-apiserver's etcd running safely, made to run in
// the image as init containers and CronJobs (the image has no shell and no etcdctl): certs creates the bundled
// etcd's certificates, snapshot and restore back up and bring back the AIM objects with their UIDs, defrag gives
// the space compaction freed back to the file system.
package etcd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/grpclog"

	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/help"
)

// NewCommand returns the etcd command and its subcommands.
func NewCommand(ctx context.Context, out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "etcd",
		Short: "Operate aim-apiserver's etcd: certificates, snapshots, restore, defragmentation",
		Long: `The commands that keep aim-apiserver's etcd running safely, made to run from the image as init containers,
CronJobs and Jobs (the image has no shell and no etcdctl). See docs/operations.md.`,
		Args: cobra.NoArgs,
	}
	cmd.SetContext(ctx)
	cmd.AddCommand(newCertsCommand(out), newSnapshotCommand(out), newRestoreCommand(out), newDefragCommand(out))
	for _, c := range append(cmd.Commands(), cmd) {
		help.Own(c)
	}
	return cmd
}

// connection reaches the etcd with the flags the server uses for it.
type connection struct {
	servers                   []string
	caFile, certFile, keyFile string
	prefix                    string
	timeout                   time.Duration
}

func (c *connection) addFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&c.servers, "etcd-servers", c.servers, "etcd endpoints (https://host:2379), as the server's --etcd-servers.")
	fs.StringVar(&c.caFile, "etcd-cafile", c.caFile, "CA of etcd's serving certificate.")
	fs.StringVar(&c.certFile, "etcd-certfile", c.certFile, "Client certificate etcd admits.")
	fs.StringVar(&c.keyFile, "etcd-keyfile", c.keyFile, "Key of the client certificate.")
	fs.StringVar(&c.prefix, "etcd-prefix", apiserver.EtcdPathPrefix, "Where the AIM objects are, as the server's --etcd-prefix.")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "How long the whole operation may take.")
}

func (c *connection) config() (clientv3.Config, error) {
	if len(c.servers) == 0 {
		return clientv3.Config{}, errors.New("--etcd-servers is required")
	}
	cfg := clientv3.Config{Endpoints: c.servers, DialTimeout: reachTimeout, Logger: zap.NewNop(),
		// Connect before returning, and say why not (an unknown host, a refused certificate) rather than only
		// that the time ran out.
		DialOptions: []grpc.DialOption{grpc.WithBlock(), grpc.WithReturnConnectionError()}}
	if c.certFile != "" || c.caFile != "" {
		tlsConfig, err := transport.TLSInfo{CertFile: c.certFile, KeyFile: c.keyFile, TrustedCAFile: c.caFile}.ClientConfig()
		if err != nil {
			return cfg, fmt.Errorf("etcd TLS: %w", err)
		}
		tlsConfig.MinVersion = tls.VersionTLS12
		cfg.TLS = tlsConfig
	}
	// etcd's client logs every dial it retries; the commands report errors themselves.
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard))
	return cfg, nil
}

// client connects and checks that the first endpoint answers, so that a wrong address or certificate fails in
// seconds with its cause rather than when --timeout ends.
func (c *connection) client(ctx context.Context) (*clientv3.Client, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, err
	}
	client, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to etcd at %v: %w", cfg.Endpoints, err)
	}
	probe, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	if _, err := client.Status(probe, cfg.Endpoints[0]); err != nil {
		client.Close()
		return nil, fmt.Errorf("etcd at %s does not answer within %s: %w", cfg.Endpoints[0], reachTimeout, err)
	}
	return client, nil
}

// withClient runs f with a connected client, all within --timeout.
func (c *connection) withClient(ctx context.Context, f func(context.Context, *clientv3.Client) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	client, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer client.Close()
	return f(ctx, client)
}

// reachTimeout bounds the first contact with etcd.
const reachTimeout = 20 * time.Second

// mib formats a byte count for people.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
