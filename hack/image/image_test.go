//go:build image

// The image tests check what `make image` and `make release` wrote (IMAGE_TARBALL, RELEASE_DIR), as it ships:
// the linux/amd64 image's file system is unpacked and its binary run inside it, chrooted, as the image's user,
// with no file of the host visible. They need the helm of hack/tools (HELM) to read how the chart mounts
// certificate authorities.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"debug/elf"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/test/framework"
	"github.com/aim-apiserver/aim-apiserver/test/imagefs"
	"github.com/aim-apiserver/aim-apiserver/test/registrytest"
)

func env(t *testing.T, key string) string {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		t.Fatalf("%s is not set: run the image tests through make image / make release", key)
	}
	return v
}

// platformImages unpacks the image archive (imagefs.Open) and checks that its index names the version.
func platformImages(t *testing.T, archive string) map[string]v1.Image {
	t.Helper()
	a := imagefs.Open(t, archive)
	if want := env(t, "IMAGE_VERSION"); a.RefName != want {
		t.Errorf("index.json ref.name %q, want the version %q", a.RefName, want)
	}
	return a.Images
}

// TestImageTarball checks the archive: an index of linux/amd64 and linux/arm64, each a static binary of its
// architecture run as a non-root user, labelled with the release; docker load's view of it is the amd64 image.
func TestImageTarball(t *testing.T) {
	archive, version := env(t, "IMAGE_TARBALL"), env(t, "IMAGE_VERSION")
	images := platformImages(t, archive)
	machines := map[string]elf.Machine{"linux/amd64": elf.EM_X86_64, "linux/arm64": elf.EM_AARCH64}
	if len(images) != len(machines) {
		t.Errorf("platforms %v, want %v", keys(images), keys(machines))
	}
	for platform, machine := range machines {
		img := images[platform]
		if img == nil {
			t.Errorf("no %s image", platform)
			continue
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.OS+"/"+cfg.Architecture != platform {
			t.Errorf("%s: config says %s/%s", platform, cfg.OS, cfg.Architecture)
		}
		if cfg.Config.User != "65532:65532" {
			t.Errorf("%s: user %q, want 65532:65532", platform, cfg.Config.User)
		}
		if !slices.Contains(cfg.Config.Env, "AWS_ECR_DISABLE_CACHE=true") {
			t.Errorf("%s: env %v lacks AWS_ECR_DISABLE_CACHE=true (the root file system is read-only)", platform, cfg.Config.Env)
		}
		if len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/aim-apiserver" {
			t.Errorf("%s: entrypoint %v", platform, cfg.Config.Entrypoint)
		}
		if got := cfg.Config.Labels["org.opencontainers.image.version"]; got != version {
			t.Errorf("%s: version label %q, want %q", platform, got, version)
		}
		files := imageFiles(t, img)
		for _, f := range []string{"etc/passwd", "etc/group", CABundlePath[1:]} {
			if files[f] == nil {
				t.Errorf("%s: no /%s", platform, f)
			}
		}
		bin := files["aim-apiserver"]
		f, err := elf.NewFile(bytes.NewReader(bin))
		if err != nil {
			t.Fatalf("%s: binary is not ELF: %v", platform, err)
		}
		if f.Machine != machine {
			t.Errorf("%s: binary is for %v", platform, f.Machine)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: binary is dynamically linked; build it with CGO_ENABLED=0", platform)
			}
		}
	}
	// docker load reads manifest.json: the first platform's image under repository:version.
	docker, err := tarball.ImageFromPath(archive, nil)
	if err != nil {
		t.Fatalf("reading the archive as docker load does: %v", err)
	}
	dockerDigest, _ := docker.Digest()
	cfg, _ := docker.ConfigFile()
	if cfg.Architecture != "amd64" {
		t.Errorf("docker archive image is %s, want amd64", cfg.Architecture)
	}
	if d, _ := docker.ConfigName(); images["linux/amd64"] != nil {
		want, _ := images["linux/amd64"].ConfigName()
		if d != want {
			t.Errorf("docker archive config %s, index's amd64 config %s (manifest %s)", d, want, dockerDigest)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// imageFiles reads every regular file of the image's layers.
func imageFiles(t *testing.T, img v1.Image) map[string][]byte {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	files := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		} else if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[hdr.Name] = data
		}
	}
}

// rootFS unpacks the linux/amd64 image.
func rootFS(t *testing.T) imagefs.FS {
	t.Helper()
	img := platformImages(t, env(t, "IMAGE_TARBALL"))["linux/amd64"]
	if img == nil {
		t.Fatal("no linux/amd64 image")
	}
	return imagefs.Unpack(t, img)
}

// imageCommand is the image's binary chrooted into root as the image's user (imagefs.FS.Command), environ the
// pod's environment.
func imageCommand(root imagefs.FS, environ []string, args ...string) *exec.Cmd {
	return root.Command(imagefs.User{UID: nonRootID, GID: nonRootID}, environ, args...)
}

// inImage runs the image's binary (imageCommand) to its end and returns what it printed.
func inImage(t *testing.T, root imagefs.FS, environ []string, args ...string) (string, error) {
	t.Helper()
	cmd := imageCommand(root, environ, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the image's binary chrooted: %v", err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("aim-apiserver %v did not finish: %s", args, out.String())
		return "", nil
	}
}

// TestImageTrustsPublicCAs: the image's own trust store holds the public roots (ISRG Root X1 signs Let's
// Encrypt, which ghcr.io and many registries use), read from the image's bundle file.
func TestImageTrustsPublicCAs(t *testing.T) {
	root := rootFS(t)
	out, err := inImage(t, root, nil, "check-registry", "--list-roots")
	if err != nil {
		t.Fatalf("check-registry: %v\n%s", err, out)
	}
	if !strings.Contains(out, "from "+CABundlePath) {
		t.Errorf("trusted CAs do not come from the image's bundle %s:\n%s", CABundlePath, firstLines(out, 3))
	}
	for _, ca := range []string{"CN=ISRG Root X1", "CN=DigiCert Global Root G2", "CN=USERTrust RSA Certification Authority"} {
		if !strings.Contains(out, ca+",") && !strings.Contains(out, ca+"\n") {
			t.Errorf("%s is not trusted:\n%s", ca, firstLines(out, 3))
		}
	}
	// Without the file, the bundle built into the binary takes over.
	if err := os.Remove(root.Path(CABundlePath)); err != nil {
		t.Fatal(err)
	}
	out, err = inImage(t, root, nil, "check-registry", "--list-roots")
	if err != nil || !strings.Contains(out, "built into aim-apiserver") || !strings.Contains(out, "CN=ISRG Root X1") {
		t.Errorf("without %s: %v\n%s", CABundlePath, err, firstLines(out, 3))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// TestImageTrustsAMountedPrivateCA: a registry on loopback whose certificate a private CA signed is refused
// until the CA is mounted the way the chart mounts extraCACertificates (a ConfigMap volume, with the kubelet's
// ..data symlinks, and the chart's environment); then the image's labels are read, and the public roots stay
// trusted next to it.
func TestImageTrustsAMountedPrivateCA(t *testing.T) {
	root := rootFS(t)
	caPEM, serverCert := privateCA(t)
	srv := httptest.NewUnstartedServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serverCert}}
	srv.StartTLS()
	defer srv.Close()

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	ref, err := name.ParseReference(strings.TrimPrefix(srv.URL, "https://") + "/aim/llama:1.0")
	if err != nil {
		t.Fatal(err)
	}
	img, err := random.Image(512, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigFile()
	cfg = cfg.DeepCopy()
	cfg.Config.Labels = map[string]string{"com.amd.aim.model.canonicalName": "meta-llama/Llama-3.1-8B-Instruct"}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, remote.WithTransport(client)); err != nil {
		t.Fatalf("pushing the test image: %v", err)
	}

	mountPath, chartEnv := chartCAMount(t)
	out, err := inImage(t, root, chartEnv, "check-registry", ref.String())
	if err == nil || !strings.Contains(out, "certificate signed by unknown authority") {
		t.Fatalf("before the CA is mounted the registry must be refused as unknown, got %v:\n%s", err, out)
	}
	imagefs.MountLikeKubelet(t, root.Path(mountPath), map[string][]byte{"private-ca.crt": caPEM}, 0o644, 0)
	out, err = inImage(t, root, chartEnv, "check-registry", "--list-roots", ref.String())
	if err != nil {
		t.Fatalf("with the CA mounted at %s: %v\n%s", mountPath, err, out)
	}
	for _, want := range []string{`model: "meta-llama/Llama-3.1-8B-Instruct"`, "CN=aim test private CA", "CN=ISRG Root X1", CABundlePath, mountPath} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestImageReadsECRWithThePodsIdentity: a registry in ECR (here a mirror of Docker Hub, as an ECR pull-through
// cache is) is read with the credentials of the pod's AWS identity, with no pull secret: the AWS SDK's default
// chain (static keys here; IRSA or Pod Identity in a cluster) gets a token from the ECR API (a fake, through
// AWS_ENDPOINT_URL_ECR), as aim-engine's keychain does. With the image's environment (AWS_ECR_DISABLE_CACHE) and
// $HOME unwritable, as in the pod, the ECR helper logs no failed cache writes.
func TestImageReadsECRWithThePodsIdentity(t *testing.T) {
	root := rootFS(t)
	const ecrHost, token = "111122223333.dkr.ecr.us-east-1.amazonaws.com", "ecr-token"
	ecrAPI, tokens := registrytest.ECRAPI(t, ecrHost, token)
	reg := httptest.NewServer(registrytest.BasicAuth("AWS", token, registry.New(registry.Logger(log.New(io.Discard, "", 0)))))
	defer reg.Close()
	port := reg.URL[strings.LastIndex(reg.URL, ":")+1:]
	registrytest.PushLabelled(t, "127.0.0.1:"+port+"/dockerhub/amd/aim-llama:1.0",
		map[string]string{"com.amd.aim.model.canonicalName": "meta-llama/Llama-3.1-8B-Instruct"}, remote.WithAuth(&authn.Basic{Username: "AWS", Password: token}))

	// The ECR host names this loopback registry inside the image, and the mirrors file sends Docker Hub to it.
	if err := os.WriteFile(root.Path("etc", "hosts"), []byte("127.0.0.1 localhost "+ecrHost+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mirrors := fmt.Sprintf("registries:\n  docker.io:\n    fallback: false\n    mirrors: [{endpoint: \"http://%s:%s/dockerhub\"}]\n", ecrHost, port)
	if err := os.WriteFile(root.Path("registries.yaml"), []byte(mirrors), 0o644); err != nil {
		t.Fatal(err)
	}
	// HOME as the runtime sets it from the image's /etc/passwd: a directory the image does not have.
	environ := []string{"HOME=/home/nonroot", "AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_ENDPOINT_URL_ECR=" + ecrAPI}
	out, err := inImage(t, root, environ, "check-registry", "--registry-config", "/registries.yaml", "docker.io/amd/aim-llama:1.0")
	if err != nil || !strings.Contains(out, `model: "meta-llama/Llama-3.1-8B-Instruct"`) {
		t.Fatalf("check-registry through the ECR mirror: %v\n%s", err, out)
	}
	if tokens.Load() == 0 {
		t.Errorf("the ECR API was not asked for a token:\n%s", out)
	}
	if strings.Contains(out, "cache") {
		t.Errorf("the ECR helper logged about its cache:\n%s", out)
	}
}

// chartCAMount renders the chart with extraCACertificates and returns the mount path of that volume in the
// aim-apiserver container and the container's environment.
func chartCAMount(t *testing.T) (string, []string) {
	t.Helper()
	for _, c := range chartContainers(t, []string{"extraCACertificates.configMap=private-cas"}) {
		if c.Name != "aim-apiserver" {
			continue
		}
		for _, m := range c.mounts {
			if slices.Contains(m.configMaps, "private-cas") {
				return m.path, c.environ
			}
		}
	}
	t.Fatal("the chart mounts no volume of ConfigMap private-cas into aim-apiserver")
	return "", nil
}

// privateCA makes a CA and a serving certificate for 127.0.0.1 signed by it.
func privateCA(t *testing.T) ([]byte, tls.Certificate) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "aim test private CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "registry"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestImageVersion: the binary in the image reports the release its labels and tag name.
func TestImageVersion(t *testing.T) {
	root := rootFS(t)
	out, err := inImage(t, root, nil, "--version")
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(out), "aim-apiserver "+env(t, "IMAGE_VERSION"); got != want {
		t.Errorf("--version printed %q, want %q", got, want)
	}
}

// TestRelease checks what `make release` wrote: the image archive, the chart packaged with the image's version as
// appVersion (so image.tag defaults to the image of the same release), and checksums that match.
func TestRelease(t *testing.T) {
	dir, version := env(t, "RELEASE_DIR"), env(t, "IMAGE_VERSION")
	out, err := exec.Command(env(t, "HELM"), "show", "chart", filepath.Join(dir, "aim-apiserver-"+strings.TrimPrefix(version, "v")+".tgz")).CombinedOutput()
	if err != nil {
		t.Fatalf("helm show chart: %v\n%s", err, out)
	}
	var chart struct {
		Version    string `json:"version"`
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(out, &chart); err != nil {
		t.Fatal(err)
	}
	if chart.AppVersion != version || "v"+chart.Version != version {
		t.Errorf("packaged chart: version %q, appVersion %q; want %q", chart.Version, chart.AppVersion, version)
	}
	images := platformImages(t, filepath.Join(dir, "aim-apiserver-image-"+version+".tar"))
	for platform, img := range images {
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Config.Labels["org.opencontainers.image.version"]; got != version {
			t.Errorf("%s image of the release: version label %q, want %q", platform, got, version)
		}
	}
	check := exec.Command("sha256sum", "--check", "--strict", "SHA256SUMS")
	check.Dir = dir
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("SHA256SUMS: %v\n%s", err, out)
	}
}

// TestImageLocalMode runs the image's binary in local mode inside its file system: /version reports the
// release, an object created there says in its status that no controller runs, the first 100 log lines hold no
// warning or error, and with --logging-format=json every line is a JSON object.
func TestImageLocalMode(t *testing.T) {
	version := env(t, "IMAGE_VERSION")
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			root := rootFS(t)
			data := root.Path("data")
			if err := os.Mkdir(data, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(data, 0o777); err != nil {
				t.Fatal(err)
			}
			port := framework.FreePort(t)
			cmd := imageCommand(root, nil, "--local", "--data-dir", "/data", "--secure-port", fmt.Sprint(port),
				"--local-etcd-unsafe-no-fsync", "--logging-format", format)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stopped := false
			stop := func() {
				if !stopped {
					stopped = true
					_ = cmd.Process.Signal(syscall.SIGTERM)
					_ = cmd.Wait()
				}
			}
			defer stop()

			cfg := framework.WaitForLocalMode(t, filepath.Join(data, "kubeconfig"), 90*time.Second, stderr.String)
			client, err := rest.HTTPClientFor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var info struct{ GitVersion string }
			getJSON(t, client, cfg.Host+"/version", &info)
			if info.GitVersion != version {
				t.Errorf("/version gitVersion %q, want %q", info.GitVersion, version)
			}
			dyn, err := dynamic.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			models := dyn.Resource(schema.GroupVersionResource{Group: "aim.eai.amd.com", Version: "v1alpha1", Resource: "aimclustermodels"})
			model := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "aim.eai.amd.com/v1alpha1", "kind": "AIMClusterModel",
				"metadata": map[string]any{"name": "llama"}, "spec": map[string]any{"image": "docker.io/amdenterpriseai/aim-llama:0.8"}}}
			created, err := models.Create(context.Background(), model, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("creating a model: %v", err)
			}
			conditions, _, _ := unstructured.NestedSlice(created.Object, "status", "conditions")
			if len(conditions) != 1 || conditions[0].(map[string]any)["reason"] != "ControllerNotRunning" ||
				!strings.Contains(fmt.Sprint(conditions[0].(map[string]any)["message"]), "--workload-kubeconfig") {
				t.Errorf("status of a model created in local mode: %v", conditions)
			}
			if !strings.Contains(stdout.String(), "controller: off") || !strings.Contains(stdout.String(), "--workload-kubeconfig") {
				t.Errorf("the banner does not say that no controller runs:\n%s", stdout.String())
			}
			stop()

			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			if len(lines) < 5 {
				t.Fatalf("only %d log lines:\n%s", len(lines), stderr.String())
			}
			for i, line := range lines {
				switch format {
				case "text":
					if i < 100 && (strings.HasPrefix(line, "W") || strings.HasPrefix(line, "E")) {
						t.Errorf("log line %d is a warning or error: %s", i+1, line)
					}
				case "json":
					var entry map[string]any
					if err := json.Unmarshal([]byte(line), &entry); err != nil {
						t.Errorf("log line %d is not JSON (%v): %s", i+1, err, line)
					} else if i < 100 && entry["err"] != nil {
						t.Errorf("log line %d is an error: %s", i+1, line)
					}
				}
			}
		})
	}
}

func getJSON(t *testing.T, client *http.Client, url string, into any) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestImageArchiveIsReproducible: the same binaries, version, revision and commit time give the same archive, byte for
// byte (layers and tar entries dated, entries sorted), so a release can be rebuilt and checked against its
// SHA256SUMS.
func TestImageArchiveIsReproducible(t *testing.T) {
	dir := t.TempDir()
	var platforms []Platform
	for _, arch := range []string{"amd64", "arm64"} {
		bin := filepath.Join(dir, arch)
		if err := os.WriteFile(bin, []byte("stand-in binary for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
		platforms = append(platforms, Platform{OS: "linux", Architecture: arch, Binary: bin})
	}
	r := Release{Version: "v1.2.3", Revision: "0123456789abcdef", Created: time.Unix(1_700_000_000, 0)}
	var archives [2][]byte
	for i := range archives {
		out := filepath.Join(dir, fmt.Sprintf("image-%d.tar", i))
		if err := WriteArchive(out, "example.com/aim-apiserver", r, platforms); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		archives[i] = data
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Error("two builds of the same inputs differ")
	}
}

// TestImageRunsTheMigrateJob: the image's binary takes the arguments of artifacts/deploy/migrate/job.yaml as the
// Job passes them (its flags, --yes, --dry-run), passes migrate's validation, and stops only where a process
// outside a cluster must: there is no in-cluster configuration to read. A flag the shipped binary lacks, or a
// value it refuses, would stop it earlier.
func TestImageRunsTheMigrateJob(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "artifacts", "deploy", "migrate", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var job struct {
			Kind string
			Spec struct {
				Template struct {
					Spec struct{ Containers []struct{ Args []string } }
				}
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &job); err != nil {
			t.Fatal(err)
		}
		if job.Kind == "Job" && len(job.Spec.Template.Spec.Containers) > 0 {
			args = job.Spec.Template.Spec.Containers[0].Args
		}
	}
	if len(args) == 0 || args[0] != "migrate" {
		t.Fatalf("the Job's arguments: %v", args)
	}
	out, err := inImage(t, rootFS(t), nil, args...)
	if err == nil || !strings.Contains(out, "reading the kubeconfig: invalid configuration: no configuration has been provided") {
		t.Errorf("aim-apiserver %s in the image: %v; want it to stop at reading the cluster's configuration:\n%s", strings.Join(args, " "), err, out)
	}
}

// TestImageRunsTheChartArgs: every container of the chart's Deployment that runs the image takes its arguments and
// environment as the chart renders them, in several modes, with a certificate wherever the chart mounts a Secret:
// the shipped binary parses and validates them, loads the mounted files, and stops only where a process outside a
// cluster must, reading the cluster's configuration. A flag the binary lacks, a value it refuses or a file it
// expects elsewhere would stop it earlier. (TestChartArgsAreTheBinarysFlags parses them with the source's flags.)
func TestImageRunsTheChartArgs(t *testing.T) {
	root := rootFS(t)
	files := secretFiles(t)
	for _, tc := range []struct {
		name string
		set  []string
	}{
		{"defaults", nil},
		{"serving certificate from cert-manager", []string{"servingCert.mode=certManager"}},
		{"external etcd", []string{"etcd.mode=external", "etcd.external.endpoints={https://etcd-0.example.com:2379}",
			"etcd.external.clientSecret=etcd-client"}},
		{"no declared objects, extra arguments", []string{"defaultRuntimeConfig.enabled=false", "clusterModelSource.enabled=false",
			"extraArgs={--image-metadata-registries=ghcr.io}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := 0
			for _, c := range chartContainers(t, tc.set) {
				if !strings.Contains(c.Image, "/aim-apiserver:") {
					continue
				}
				for _, m := range c.mounts {
					for name, data := range files {
						if m.secret {
							writeImageFile(t, root.Path(m.path, name), data)
						}
					}
				}
				out, err := inImage(t, root, c.environ, c.Args...)
				ran++
				if err == nil || !strings.Contains(out, "unable to load in-cluster configuration") &&
					!strings.Contains(out, "no configuration has been provided") {
					t.Errorf("container %s: aim-apiserver %s in the image: %v; want it to stop at reading the cluster's "+
						"configuration:\n%s", c.Name, strings.Join(c.Args, " "), err, firstLines(out, 8))
				}
			}
			if ran == 0 {
				t.Fatal("no container of the chart's Deployment runs the image")
			}
		})
	}
}

// chartContainer is a container of the chart's Deployment as the kubelet would start it: its environment (a value
// the downward API gives is the release namespace) and its volume mounts.
type chartContainer struct {
	Name, Image string
	Args        []string
	environ     []string
	mounts      []chartMount
}

// chartMount is where a container mounts a volume, and what the volume holds: a Secret, ConfigMaps by name.
type chartMount struct {
	path       string
	secret     bool
	configMaps []string
}

// volumeSource is a volume, or a source of a projected one: a Secret or a ConfigMap.
type volumeSource struct {
	Secret    *struct{}              `json:"secret"`
	ConfigMap *struct{ Name string } `json:"configMap"`
}

// chartContainers renders the chart's Deployment with the values set and returns its init containers and
// containers.
func chartContainers(t *testing.T, set []string) []chartContainer {
	t.Helper()
	args := []string{"template", "aim-apiserver", filepath.Join("..", "..", "artifacts", "charts", "aim-apiserver"),
		"--namespace", "aim-system", "--show-only", "templates/deployment.yaml"}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	out, err := exec.Command(env(t, "HELM"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	type container struct {
		Name, Image string
		Args        []string
		Env         []struct {
			Name, Value string
			ValueFrom   *struct{} `json:"valueFrom"`
		}
		VolumeMounts []struct {
			Name      string
			MountPath string `json:"mountPath"`
		} `json:"volumeMounts"`
	}
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					InitContainers []container `json:"initContainers"`
					Containers     []container
					Volumes        []struct {
						Name string
						volumeSource
						Projected *struct{ Sources []volumeSource }
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(out, &d); err != nil {
		t.Fatalf("decoding the Deployment: %v", err)
	}
	pod := d.Spec.Template.Spec
	volumes := map[string]chartMount{}
	for _, v := range pod.Volumes {
		sources := []volumeSource{v.volumeSource}
		if v.Projected != nil {
			sources = append(sources, v.Projected.Sources...)
		}
		var m chartMount
		for _, src := range sources {
			m.secret = m.secret || src.Secret != nil
			if src.ConfigMap != nil {
				m.configMaps = append(m.configMaps, src.ConfigMap.Name)
			}
		}
		volumes[v.Name] = m
	}
	var cs []chartContainer
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		cc := chartContainer{Name: c.Name, Image: c.Image, Args: c.Args}
		for _, e := range c.Env {
			value := e.Value
			if e.ValueFrom != nil {
				value = "aim-system"
			}
			cc.environ = append(cc.environ, e.Name+"="+value)
		}
		for _, vm := range c.VolumeMounts {
			m := volumes[vm.Name]
			m.path = vm.MountPath
			cc.mounts = append(cc.mounts, m)
		}
		cs = append(cs, cc)
	}
	return cs
}

// secretFiles are the keys of a kubernetes.io/tls Secret with a CA: a certificate, its key and the CA's
// certificate, as the chart's Secrets hold them.
func secretFiles(t *testing.T) map[string][]byte {
	t.Helper()
	caPEM, cert := privateCA(t)
	key, err := x509.MarshalECPrivateKey(cert.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"tls.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		"tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: key}),
		"ca.crt":  caPEM,
	}
}

// writeImageFile writes a file into the unpacked image that its user can read, as a mounted Secret is.
func writeImageFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
