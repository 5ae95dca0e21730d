package etcdmaintenance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// BucketConfig names an S3-compatible bucket that snapshots are copied to, so that they outlive the cluster and
// its volumes.
type BucketConfig struct {
	Name string
	// Prefix is the "directory" of the snapshots in the bucket; empty puts them at its root.
	Prefix string
	// Endpoint is the URL of an S3-compatible service (MinIO, Ceph RGW, a cloud's S3 API); empty is AWS S3.
	Endpoint string
	// Region; empty takes AWS_REGION or the shared configuration's, else us-east-1 (which S3-compatible services
	// accept whatever their own).
	Region string
	// PathStyle addresses the bucket as <endpoint>/<bucket>/<key>, which most S3-compatible services need,
	// instead of <bucket>.<endpoint>/<key>.
	PathStyle bool
}

// URL is how the bucket is named to users: s3://bucket/prefix/.
func (c BucketConfig) URL() string {
	return "s3://" + path.Join(c.Name, c.Prefix) + "/"
}

// Bucket is a BucketConfig with a client.
type Bucket struct {
	config BucketConfig
	client *s3.Client
}

// NewBucket makes a client of the bucket. Credentials come from the AWS SDK's default chain: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (the chart sets them from a Secret), a web identity token (EKS IRSA), EKS Pod Identity or
// the instance's role. TLS trust and proxies are Go's (SSL_CERT_DIR, HTTPS_PROXY), as for registries.
func NewBucket(ctx context.Context, c BucketConfig) (*Bucket, error) {
	if c.Name == "" {
		return nil, errors.New("no bucket named")
	}
	var opts []func(*awsconfig.LoadOptions) error
	if c.Region != "" {
		opts = append(opts, awsconfig.WithRegion(c.Region))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS configuration for %s: %w", c.URL(), err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		o.UsePathStyle = c.PathStyle
		// The SDK's default adds CRC32 trailers in aws-chunked bodies, which several S3-compatible services refuse.
		// A snapshot carries its own SHA-256, checked after every download.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	return &Bucket{config: c, client: client}, nil
}

// URL names the bucket and prefix, s3://bucket/prefix/.
func (b *Bucket) URL() string { return b.config.URL() }

func (b *Bucket) key(name string) string {
	if b.config.Prefix == "" {
		return name
	}
	return strings.TrimSuffix(b.config.Prefix, "/") + "/" + name
}

// Upload copies a snapshot file into the bucket under its file name and checks that the bucket holds all of it.
func (b *Bucket) Upload(ctx context.Context, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	key := b.key(filepath.Base(file))
	// One PUT holds up to 5 GiB, more than the bundled etcd's quota of 4 GiB.
	if _, err := b.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(b.config.Name),
		Key:           aws.String(key),
		Body:          f,
		ContentLength: aws.Int64(info.Size()),
		ContentType:   aws.String("application/octet-stream"),
	}); err != nil {
		return fmt.Errorf("uploading %s to %s: %w", file, b.URL(), err)
	}
	head, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.config.Name), Key: aws.String(key)})
	if err != nil {
		return fmt.Errorf("reading back %s in %s: %w", filepath.Base(file), b.URL(), err)
	}
	if got := aws.ToInt64(head.ContentLength); got != info.Size() {
		return fmt.Errorf("%s in %s holds %d bytes, the snapshot has %d", filepath.Base(file), b.URL(), got, info.Size())
	}
	return nil
}

// Snapshots lists the names of the snapshots in the bucket, oldest first.
func (b *Bucket) Snapshots(ctx context.Context) ([]string, error) {
	var names []string
	pages := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(b.config.Name),
		Prefix: aws.String(b.key(filePrefix)),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", b.URL(), err)
		}
		for _, o := range page.Contents {
			name := path.Base(aws.ToString(o.Key))
			if b.key(name) == aws.ToString(o.Key) && isSnapshotName(name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names, nil
}

// Prune deletes the oldest snapshots of the bucket beyond keep (0 keeps all) and returns their names.
func (b *Bucket) Prune(ctx context.Context, keep int) ([]string, error) {
	all, err := b.Snapshots(ctx)
	if err != nil || keep <= 0 || len(all) <= keep {
		return nil, err
	}
	old := all[:len(all)-keep]
	for _, name := range old {
		if _, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{
			Bucket: aws.String(b.config.Name), Key: aws.String(b.key(name)),
		}); err != nil {
			return nil, fmt.Errorf("removing the old snapshot %s from %s: %w", name, b.URL(), err)
		}
	}
	return old, nil
}

// Download copies the snapshot name ("" for the newest) from the bucket into dir and returns the file's path. The
// file appears under its name only once complete.
func (b *Bucket) Download(ctx context.Context, name, dir string) (string, error) {
	if name == "" {
		all, err := b.Snapshots(ctx)
		if err != nil {
			return "", err
		}
		if len(all) == 0 {
			return "", fmt.Errorf("no snapshot (%s*%s) in %s", filePrefix, fileSuffix, b.URL())
		}
		name = all[len(all)-1]
	}
	if !isSnapshotName(name) {
		return "", fmt.Errorf("%q is not the name of a snapshot (%s<time>%s)", name, filePrefix, fileSuffix)
	}
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.config.Name), Key: aws.String(b.key(name))})
	if err != nil {
		return "", fmt.Errorf("downloading %s from %s: %w", name, b.URL(), err)
	}
	defer out.Body.Close()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, out.Body); err != nil {
		tmp.Close()
		return "", fmt.Errorf("downloading %s from %s: %w", name, b.URL(), err)
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	dest := filepath.Join(dir, name)
	return dest, os.Rename(tmp.Name(), dest)
}
