package main

import (
	"archive/tar"
	"bytes"
	"encoding/pem"
	"fmt"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

const (
	// UID and GID of the unprivileged user, as in distroless "nonroot".
	nonRootID  = 65532
	binaryPath = "/aim-apiserver"
	// CABundlePath is where crypto/x509 (and most other TLS stacks) look first for system roots on Linux.
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
)

// Release is what every image of one build shares: its version, the commit it was built from and that
// commit's time (the image's creation time, so that a rebuild of a commit is byte-identical).
type Release struct {
	Version  string
	Revision string
	Created  time.Time
}

// Platform is one architecture's binary.
type Platform struct {
	OS, Architecture string
	Binary           string
}

// Build returns the image of one platform: the binary at /aim-apiserver, run as 65532:65532, with the public
// certificate authorities at CABundlePath.
func Build(p Platform, r Release) (v1.Image, error) {
	data, err := os.ReadFile(p.Binary)
	if err != nil {
		return nil, fmt.Errorf("reading binary: %w", err)
	}
	cas, err := CABundle()
	if err != nil {
		return nil, err
	}
	layerTar, err := layerContents(data, cas)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromReader(bytes.NewReader(layerTar), tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("building layer: %w", err)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, fmt.Errorf("appending layer: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = p.Architecture, p.OS
	cfg.Created = v1.Time{Time: r.Created.UTC()}
	cfg.Config.Entrypoint = []string{binaryPath}
	cfg.Config.User = fmt.Sprintf("%d:%d", nonRootID, nonRootID)
	cfg.Config.WorkingDir = "/"
	// The ECR credential helper (registry reads with the pod's AWS identity) caches tokens under $HOME, which is
	// read-only here: every attempt would fail and log. Without the cache it asks ECR each time.
	cfg.Config.Env = []string{"AWS_ECR_DISABLE_CACHE=true"}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "aim-apiserver",
		"org.opencontainers.image.description": "Aggregated API server for AMD Inference Microservices (aim.eai.amd.com)",
		"org.opencontainers.image.version":     r.Version,
		"org.opencontainers.image.revision":    r.Revision,
		"org.opencontainers.image.created":     r.Created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.source":      "https://github.com/aim-apiserver/aim-apiserver",
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	return mutate.ConfigFile(img, cfg)
}

// CABundle is the Mozilla root store as golang.org/x/crypto/x509roots/fallback ships it (the same roots the
// binary embeds), in PEM. Roots that carry a constraint PEM cannot express (a distrust-after date) are left
// out rather than trusted without it.
func CABundle() ([]byte, error) {
	var buf bytes.Buffer
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		if err := pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate}); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// layerContents is a tar with /etc/passwd and /etc/group (so tools resolve the user), the CA bundle and the
// binary, every entry dated at the epoch.
func layerContents(binary, caBundle []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	for _, dir := range []string{"etc/", "etc/ssl/", "etc/ssl/certs/"} {
		if err := tw.WriteHeader(&tar.Header{Name: dir, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch}); err != nil {
			return nil, err
		}
	}
	files := []struct {
		name string
		mode int64
		data []byte
	}{
		{"etc/passwd", 0o644, []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonRootID, nonRootID))},
		{"etc/group", 0o644, []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonRootID))},
		{CABundlePath[1:], 0o644, caBundle},
		{binaryPath[1:], 0o755, binary},
	}
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Typeflag: tar.TypeReg, Mode: f.mode, Size: int64(len(f.data)), ModTime: epoch}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
