package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// UID and GID of the unprivileged user, as in distroless "nonroot".
	nonRootID  = 65532
	binaryPath = "/aim-apiserver"
)

// Build returns the image: the binary at /aim-apiserver, run as 65532:65532.
func Build(binary, version string) (v1.Image, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, fmt.Errorf("reading binary: %w", err)
	}
	layerTar, err := layerContents(data)
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
	cfg.Architecture, cfg.OS = "amd64", "linux"
	cfg.Config.Entrypoint = []string{binaryPath}
	cfg.Config.User = fmt.Sprintf("%d:%d", nonRootID, nonRootID)
	cfg.Config.WorkingDir = "/"
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "aim-apiserver",
		"org.opencontainers.image.description": "Aggregated API server for AMD Inference Microservices (aim.eai.amd.com)",
		"org.opencontainers.image.version":     version,
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	return mutate.ConfigFile(img, cfg)
}

// layerContents is a tar with /etc/passwd, /etc/group (so tools resolve the user) and the binary.
func layerContents(binary []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	files := []struct {
		name string
		mode int64
		data []byte
	}{
		{"etc/passwd", 0o644, []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonRootID, nonRootID))},
		{"etc/group", 0o644, []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonRootID))},
		{binaryPath[1:], 0o755, binary},
	}
	if err := tw.WriteHeader(&tar.Header{Name: "etc/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch}); err != nil {
		return nil, err
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
