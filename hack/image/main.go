// Command image builds the aim-apiserver container image without a container engine: one layer holding the
// statically linked binary and a passwd entry for the non-root user, written as an image tarball that
// `docker load`, `podman load`, `kind load image-archive` and `crane push` accept.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	binary := flag.String("binary", "_output/bin/linux-amd64/aim-apiserver", "statically linked aim-apiserver binary")
	out := flag.String("out", "_output/aim-apiserver-image.tar", "image tarball to write")
	ref := flag.String("tag", "ghcr.io/aim-apiserver/aim-apiserver:dev", "image reference recorded in the tarball")
	version := flag.String("version", "dev", "version label")
	flag.Parse()

	if err := run(*binary, *out, *ref, *version); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(binary, out, ref, version string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image tag %q: %w", ref, err)
	}
	img, err := Build(binary, version)
	if err != nil {
		return err
	}
	if err := tarball.WriteToFile(out, tag, img); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	fmt.Printf("wrote %s (%s)\n", out, tag)
	return nil
}
