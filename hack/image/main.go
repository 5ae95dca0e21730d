// Command image builds the aim-apiserver container image without a container engine: for each platform one
// layer holding the statically linked binary, the public certificate authorities and a passwd entry for the
// non-root user. It writes one archive that is both an OCI image layout (an index of every platform, for
// podman load, skopeo copy oci-archive:, crane and containerd's import) and a docker image archive of the first
// platform (its manifest.json, for docker load and kind load image-archive).
package main

import (
	"archive/tar"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type platformFlags []Platform

func (p *platformFlags) String() string { return fmt.Sprint(*p) }

// Set parses os/arch=path.
func (p *platformFlags) Set(v string) error {
	plat, path, ok := strings.Cut(v, "=")
	osName, arch, ok2 := strings.Cut(plat, "/")
	if !ok || !ok2 || path == "" {
		return fmt.Errorf("%q: want os/arch=binary, e.g. linux/amd64=_output/bin/linux-amd64/aim-apiserver", v)
	}
	*p = append(*p, Platform{OS: osName, Architecture: arch, Binary: path})
	return nil
}

func main() {
	var platforms platformFlags
	flag.Var(&platforms, "binary", "os/arch=path of a statically linked aim-apiserver binary; repeat for each platform (the first is the docker archive's)")
	out := flag.String("out", "_output/aim-apiserver-image.tar", "image archive to write")
	repo := flag.String("repository", "ghcr.io/aim-apiserver/aim-apiserver", "image repository recorded in the archive; the tag is --version")
	var r Release
	flag.StringVar(&r.Version, "version", "", "release version (image tag and label)")
	flag.StringVar(&r.Revision, "revision", "", "commit the binaries were built from")
	created := flag.Int64("created", 0, "image creation time in Unix seconds (the commit's time, for reproducible images)")
	flag.Parse()
	r.Created = time.Unix(*created, 0)

	if err := WriteArchive(*out, *repo, r, platforms); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (%s:%s, %d platforms)\n", *out, *repo, r.Version, len(platforms))
}

// WriteArchive builds the image of every platform and writes the archive.
func WriteArchive(out, repo string, r Release, platforms []Platform) error {
	if len(platforms) == 0 {
		return fmt.Errorf("no --binary given")
	}
	tag, err := name.NewTag(repo + ":" + r.Version)
	if err != nil {
		return fmt.Errorf("image reference %s:%s: %w", repo, r.Version, err)
	}
	var images []v1.Image
	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		img, err := Build(p, r)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", p.OS, p.Architecture, err)
		}
		images = append(images, img)
		index = mutate.AppendManifests(index, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Architecture}}})
	}
	// index.json names the release's index the way containerd and podman read a tag from an OCI archive.
	top := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{Add: index,
		Descriptor: v1.Descriptor{Annotations: map[string]string{
			"org.opencontainers.image.ref.name": r.Version,
			"io.containerd.image.name":          tag.Name(),
		}}})

	dir, err := os.MkdirTemp("", "aim-apiserver-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := layout.Write(dir, top); err != nil {
		return fmt.Errorf("writing the OCI layout: %w", err)
	}
	manifest, err := dockerManifest(images[0], tag.Name())
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		return err
	}
	return tarDir(dir, out)
}

// dockerManifest is docker load's manifest.json for img, pointing at the layout's blobs (as docker save
// writes it since Docker 25).
func dockerManifest(img v1.Image, tag string) ([]byte, error) {
	cfg, err := img.ConfigName()
	if err != nil {
		return nil, err
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	entry := struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{Config: blobPath(cfg), RepoTags: []string{tag}}
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return nil, err
		}
		entry.Layers = append(entry.Layers, blobPath(d))
	}
	return json.Marshal([]any{entry})
}

func blobPath(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

// tarDir writes dir as a tar with sorted entries dated at the epoch: the same inputs give the same bytes.
func tarDir(dir, out string) error {
	var paths []string
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		paths = append(paths, p)
		return nil
	}); err != nil {
		return err
	}
	slices.Sort(paths)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg, Size: info.Size()}
		if info.IsDir() {
			hdr.Name, hdr.Mode, hdr.Typeflag, hdr.Size = hdr.Name+"/", 0o755, tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !info.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if _, err := tw.Write(data); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}
