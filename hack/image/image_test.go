package main

import (
	"archive/tar"
	"debug/elf"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestImageTarball inspects the tarball `make image` writes (IMAGE_TARBALL), or builds one from a stand-in
// binary when run alone: its config must run the binary as a non-root user.
func TestImageTarball(t *testing.T) {
	path := os.Getenv("IMAGE_TARBALL")
	if path == "" {
		bin := filepath.Join(t.TempDir(), "aim-apiserver")
		if err := os.WriteFile(bin, []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(t.TempDir(), "image.tar")
		if err := run(bin, path, "example.com/aim-apiserver:test", "test"); err != nil {
			t.Fatal(err)
		}
	}
	img, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", cfg.Config.User)
	}
	if len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/aim-apiserver" {
		t.Errorf("entrypoint %v", cfg.Config.Entrypoint)
	}
	if cfg.OS != "linux" || cfg.Architecture != "amd64" {
		t.Errorf("platform %s/%s", cfg.OS, cfg.Architecture)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	found := map[string]*tar.Header{}
	var binary []byte
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		found[hdr.Name] = hdr
		if hdr.Name == "aim-apiserver" {
			binary, _ = io.ReadAll(tr)
		}
	}
	if h := found["aim-apiserver"]; h == nil || h.Mode&0o111 == 0 {
		t.Errorf("binary missing or not executable: %+v", h)
	}
	if found["etc/passwd"] == nil {
		t.Error("no /etc/passwd for the non-root user")
	}
	// The real image must hold a static Linux binary: there is no libc in it.
	if os.Getenv("IMAGE_TARBALL") != "" {
		f, err := elf.NewFile(bytesReaderAt(binary))
		if err != nil {
			t.Fatalf("binary is not ELF: %v", err)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("binary is dynamically linked; build it with CGO_ENABLED=0")
			}
		}
	}
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
