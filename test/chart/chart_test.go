//go:build chart

// Package chart checks the Helm chart artifacts/charts/aim-apiserver against the kustomize manifests in
// artifacts/deploy, which stay the reference: rendered with values that match them, the chart must produce the
// same objects, field for field, except what only Helm adds (its labels, checksum annotations) and the bytes of
// certificates (each side makes its own). It also lints the chart in every mode and checks the certificates the
// chart generates. It needs the tools of hack/tools (helm, kubectl) and openssl, no cluster: `make chart`.
package chart

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/diff"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var (
	root       = filepath.Join("..", "..")
	helmBin    = filepath.Join(root, "_output", "bin", "helm")
	kubectlBin = filepath.Join(root, "_output", "bin", "kubectl")
	chartDir   = filepath.Join(root, "artifacts", "charts", "aim-apiserver")

	// deployDir is a copy of artifacts/deploy with certificates made by hack/gen-serving-cert.sh and
	// hack/gen-etcd-certs.sh, so that kustomize can build it without touching the checkout's (git-ignored) certs.
	deployDir string
	// helmEnv keeps helm's cache, config and data out of the user's home.
	helmEnv []string
)

// The namespace and release name artifacts/deploy corresponds to.
const (
	namespace = "aim-system"
	release   = "aim-apiserver"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	for _, f := range []string{helmBin, kubectlBin} {
		if _, err := os.Stat(f); err != nil {
			fmt.Fprintf(os.Stderr, "the chart test needs the tools of hack/tools (make tools): %v\n", err)
			return 1
		}
	}
	tmp, err := os.MkdirTemp("", "aim-chart-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	for _, d := range []string{"cache", "config", "data"} {
		helmEnv = append(helmEnv, fmt.Sprintf("HELM_%s_HOME=%s", strings.ToUpper(d), filepath.Join(tmp, "helm-"+d)))
	}
	deployDir = filepath.Join(tmp, "deploy")
	if err := copyDeploy(filepath.Join(root, "artifacts", "deploy"), deployDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for script, env := range map[string]string{
		"gen-serving-cert.sh": "AIM_CERT_DIR=" + filepath.Join(deployDir, "certs"),
		"gen-etcd-certs.sh":   "AIM_ETCD_CERT_DIR=" + filepath.Join(deployDir, "certs", "etcd"),
	} {
		cmd := exec.Command(filepath.Join(root, "hack", script))
		cmd.Env = append(os.Environ(), env)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "hack/%s: %v\n%s", script, err, out)
			return 1
		}
	}
	return m.Run()
}

// copyDeploy copies the kustomizations (not certs/, which the test creates).
func copyDeploy(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if rel == "certs" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// ---- rendering -----------------------------------------------------------------------------------------------

type object = map[string]any

func command(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), helmEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String() + stderr.String(), fmt.Errorf("%s %s: %w", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return stdout.String(), nil
}

// helmTemplate renders the chart as `helm install aim-apiserver -n aim-system` would, with --set/--values args.
func helmTemplate(t *testing.T, args ...string) []object {
	t.Helper()
	out, err := command(t, helmBin, append([]string{"template", release, chartDir, "--namespace", namespace}, args...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return decode(t, out)
}

// helmTemplateError renders and expects helm to refuse; it returns helm's message.
func helmTemplateError(t *testing.T, args ...string) string {
	t.Helper()
	out, err := command(t, helmBin, append([]string{"template", release, chartDir, "--namespace", namespace}, args...)...)
	if err == nil {
		t.Fatalf("helm template %s rendered, want an error:\n%s", strings.Join(args, " "), out)
	}
	return out
}

func kustomize(t *testing.T, dir string) []object {
	t.Helper()
	out, err := command(t, kubectlBin, "kustomize", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return decode(t, out)
}

func decode(t *testing.T, manifests string) []object {
	t.Helper()
	var objs []object
	d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifests), 4096)
	for {
		var o object
		if err := d.Decode(&o); errors.Is(err, io.EOF) {
			return objs
		} else if err != nil {
			t.Fatalf("decoding rendered manifests: %v\n%s", err, manifests)
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
}

func key(o object) string {
	return fmt.Sprintf("%s %s %s/%s", o["apiVersion"], o["kind"], str(o, "metadata", "namespace"), str(o, "metadata", "name"))
}

func index(objs []object) map[string]object {
	m := map[string]object{}
	for _, o := range objs {
		m[key(o)] = o
	}
	return m
}

func find(t *testing.T, objs []object, kind, name string) object {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == kind && str(o, "metadata", "name") == name {
			return o
		}
	}
	t.Fatalf("no %s %s among %d objects", kind, name, len(objs))
	return nil
}

func has(objs []object, kind, name string) bool {
	for _, o := range objs {
		if o["kind"] == kind && str(o, "metadata", "name") == name {
			return true
		}
	}
	return false
}

func field(o object, path ...string) any {
	var v any = o
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(o object, path ...string) string {
	s, _ := field(o, path...).(string)
	return s
}

func mapAt(o object, path ...string) map[string]any {
	m, _ := field(o, path...).(map[string]any)
	return m
}

// containerArgs returns the args (or command) of a workload's first container.
func containerArgs(o object, list string) []string {
	containers, _ := field(o, "spec", "template", "spec", "containers").([]any)
	if len(containers) == 0 {
		return nil
	}
	raw, _ := containers[0].(map[string]any)[list].([]any)
	var args []string
	for _, a := range raw {
		args = append(args, a.(string))
	}
	return args
}

func volumeSecrets(o object) map[string]string {
	vols, _ := field(o, "spec", "template", "spec", "volumes").([]any)
	m := map[string]string{}
	for _, v := range vols {
		vm := v.(map[string]any)
		if s, ok := vm["secret"].(map[string]any); ok {
			m[vm["name"].(string)] = s["secretName"].(string)
		}
	}
	return m
}

// ---- normalization -------------------------------------------------------------------------------------------

// helmOnlyLabels are the labels the chart puts on its objects (and pod templates) that artifacts/deploy does not.
var helmOnlyLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}

// outsideBase are the kinds artifacts/deploy creates outside its base (secretGenerator, the cert-manager
// overlay), so without the base's app.kubernetes.io/part-of label; the chart labels every object alike.
var outsideBase = map[string]bool{"Secret": true, "Certificate": true, "Issuer": true}

// stripHelm removes from a rendered chart object what only Helm adds.
func stripHelm(t *testing.T, o object) {
	t.Helper()
	for _, meta := range []map[string]any{mapAt(o, "metadata"), mapAt(o, "spec", "template", "metadata")} {
		if meta == nil {
			continue
		}
		labels, _ := meta["labels"].(map[string]any)
		if labels != nil && labels["app.kubernetes.io/managed-by"] != nil && labels["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("%s: app.kubernetes.io/managed-by is %v", key(o), labels["app.kubernetes.io/managed-by"])
		}
		for _, l := range helmOnlyLabels {
			delete(labels, l)
		}
		if outsideBase[o["kind"].(string)] {
			delete(labels, "app.kubernetes.io/part-of")
		}
		if len(labels) == 0 {
			delete(meta, "labels")
		}
		annotations, _ := meta["annotations"].(map[string]any)
		for a := range annotations {
			if strings.HasPrefix(a, "checksum/") {
				delete(annotations, a)
			}
		}
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
}

// renameGeneratedSecrets gives the Secrets of the kustomization's secretGenerator back their names without the
// content hash suffix (and so every reference to them): the chart names them without one and rolls pods through
// checksum annotations instead.
func renameGeneratedSecrets(t *testing.T, objs []object, kustomization string) {
	t.Helper()
	data, err := os.ReadFile(kustomization)
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		SecretGenerator []struct{ Name string } `json:"secretGenerator"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatal(err)
	}
	renamed := map[string]string{}
	for _, o := range objs {
		if o["kind"] != "Secret" {
			continue
		}
		name := str(o, "metadata", "name")
		for _, g := range k.SecretGenerator {
			if regexp.MustCompile("^" + regexp.QuoteMeta(g.Name) + "-[a-z0-9]{10}$").MatchString(name) {
				renamed[name] = g.Name
				o["metadata"].(map[string]any)["name"] = g.Name
			}
		}
	}
	if len(renamed) != len(k.SecretGenerator) {
		t.Fatalf("found %d of the %d generated Secrets of %s: %v", len(renamed), len(k.SecretGenerator), kustomization, renamed)
	}
	for _, o := range objs {
		replaceStrings(o, renamed)
	}
}

func replaceStrings(v any, m map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = replaceStrings(e, m)
		}
	case []any:
		for i, e := range x {
			x[i] = replaceStrings(e, m)
		}
	case string:
		if r, ok := m[x]; ok {
			return r
		}
	}
	return v
}

// redactCertificates replaces what differs between two correct installs, the certificate bytes, after checking
// that within one install the APIService trusts the serving Secret's CA.
func redactCertificates(t *testing.T, what string, objs []object) {
	t.Helper()
	var servingCA string
	for _, o := range objs {
		if o["kind"] == "Secret" && str(o, "metadata", "name") == "aim-apiserver-serving-cert" {
			servingCA = str(o, "data", "ca.crt")
		}
	}
	for _, o := range objs {
		switch o["kind"] {
		case "APIService":
			spec := mapAt(o, "spec")
			if ca, ok := spec["caBundle"].(string); ok {
				if servingCA == "" || compact(ca) != compact(servingCA) {
					t.Errorf("%s: the APIService's caBundle is not ca.crt of the Secret aim-apiserver-serving-cert", what)
				}
				spec["caBundle"] = "<ca.crt of aim-apiserver-serving-cert>"
			}
		case "Secret":
			for k := range mapAt(o, "data") {
				o["data"].(map[string]any)[k] = "<redacted>"
			}
		}
	}
}

func compact(s string) string { return strings.Join(strings.Fields(s), "") }

// compare checks that both lists hold the same objects, equal after normalization.
func compare(t *testing.T, chart, kust []object) {
	t.Helper()
	c, k := index(chart), index(kust)
	var onlyChart, onlyKust, differ []string
	for id, o := range c {
		ko, ok := k[id]
		if !ok {
			onlyChart = append(onlyChart, id)
			continue
		}
		if !reflect.DeepEqual(o, ko) {
			differ = append(differ, id)
			t.Errorf("%s differs (- chart, + kustomize):\n%s", id, diff.Diff(o, ko))
		}
	}
	for id := range k {
		if _, ok := c[id]; !ok {
			onlyKust = append(onlyKust, id)
		}
	}
	sort.Strings(onlyChart)
	sort.Strings(onlyKust)
	if len(onlyChart) > 0 {
		t.Errorf("only the chart renders:\n  %s", strings.Join(onlyChart, "\n  "))
	}
	if len(onlyKust) > 0 {
		t.Errorf("only kustomize renders:\n  %s", strings.Join(onlyKust, "\n  "))
	}
	if len(c) != len(chart) || len(k) != len(kust) {
		t.Errorf("duplicate objects: chart %d/%d, kustomize %d/%d", len(c), len(chart), len(k), len(kust))
	}
	if !t.Failed() {
		t.Logf("%d objects equal", len(c))
	}
}

// ---- equality with artifacts/deploy --------------------------------------------------------------------------

// The default values install what `kubectl apply -k artifacts/deploy` does (createNamespace: the base also
// creates the Namespace, which helm install leaves to --create-namespace).
func TestChartEqualsKustomizeBase(t *testing.T) {
	chart := helmTemplate(t, "--set", "createNamespace=true")
	kust := kustomize(t, deployDir)
	for _, o := range chart {
		stripHelm(t, o)
	}
	renameGeneratedSecrets(t, kust, filepath.Join(deployDir, "kustomization.yaml"))
	redactCertificates(t, "chart", chart)
	redactCertificates(t, "kustomize", kust)
	compare(t, chart, kust)
}

// With cert-manager for both certificate sets the chart installs what artifacts/deploy/cert-manager does.
func TestChartEqualsCertManagerOverlay(t *testing.T) {
	chart := helmTemplate(t, "--set", "createNamespace=true", "--set", "servingCert.mode=certManager",
		"--set", "etcd.certs.mode=certManager")
	kust := kustomize(t, filepath.Join(deployDir, "cert-manager"))
	for _, o := range chart {
		stripHelm(t, o)
		if o["kind"] == "Secret" {
			t.Errorf("cert-manager mode renders %s", key(o))
		}
	}
	if _, ok := mapAt(find(t, chart, "APIService", "v1alpha1.aim.eai.amd.com"), "spec")["caBundle"]; ok {
		t.Error("cert-manager mode renders a caBundle; cainjector owns it")
	}
	compare(t, chart, kust)
}

// ---- generated certificates ----------------------------------------------------------------------------------

func parseCert(t *testing.T, what, b64 string) *x509.Certificate {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatalf("%s: no PEM", what)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return c
}

// The chart's own certificates: signed by their CA, for the names artifacts/deploy's scripts put on theirs, with
// the APIService trusting the serving CA and one etcd CA behind server, peer and client.
func TestChartGeneratedCertificates(t *testing.T) {
	objs := helmTemplate(t)
	check := func(secret string, usage x509.ExtKeyUsage, dnsNames []string, ips ...string) *x509.Certificate {
		t.Helper()
		s := find(t, objs, "Secret", secret)
		if s["type"] != "kubernetes.io/tls" {
			t.Errorf("%s: type %v", secret, s["type"])
		}
		ca := parseCert(t, secret+" ca.crt", str(s, "data", "ca.crt"))
		cert := parseCert(t, secret+" tls.crt", str(s, "data", "tls.crt"))
		pool := x509.NewCertPool()
		pool.AddCert(ca)
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
			t.Errorf("%s: tls.crt does not verify against ca.crt for %v: %v", secret, usage, err)
		}
		if !slices.Equal(cert.DNSNames, dnsNames) {
			t.Errorf("%s: DNS names %v, want %v", secret, cert.DNSNames, dnsNames)
		}
		var gotIPs []string
		for _, ip := range cert.IPAddresses {
			gotIPs = append(gotIPs, ip.String())
		}
		if !slices.Equal(gotIPs, ips) {
			t.Errorf("%s: IP addresses %v, want %v", secret, gotIPs, ips)
		}
		if len(str(s, "data", "tls.key")) == 0 {
			t.Errorf("%s: no tls.key", secret)
		}
		return ca
	}
	svc := func(name string) []string {
		return []string{name, name + ".aim-system", name + ".aim-system.svc", name + ".aim-system.svc.cluster.local"}
	}
	members := []string{"*.aim-etcd.aim-system.svc", "*.aim-etcd.aim-system.svc.cluster.local"}

	check("aim-apiserver-serving-cert", x509.ExtKeyUsageServerAuth, svc("aim-apiserver"))
	if got, want := str(find(t, objs, "APIService", "v1alpha1.aim.eai.amd.com"), "spec", "caBundle"),
		str(find(t, objs, "Secret", "aim-apiserver-serving-cert"), "data", "ca.crt"); got != want {
		t.Error("the APIService's caBundle is not the serving Secret's ca.crt")
	}
	serverCA := check("aim-etcd-server-tls", x509.ExtKeyUsageServerAuth, append(append(svc("aim-etcd-client"), members...), "localhost"), "127.0.0.1")
	peerCA := check("aim-etcd-peer-tls", x509.ExtKeyUsageServerAuth, members)
	clientCA := check("aim-apiserver-etcd-client", x509.ExtKeyUsageClientAuth, nil)
	if !serverCA.Equal(peerCA) || !serverCA.Equal(clientCA) {
		t.Error("the etcd server, peer and client certificates have different CAs")
	}
	client := parseCert(t, "client", str(find(t, objs, "Secret", "aim-apiserver-etcd-client"), "data", "tls.crt"))
	if cn := client.Subject.CommonName; cn != "aim-apiserver" {
		t.Errorf("etcd client certificate CN %q", cn)
	}
	// The checksums that roll pods are computed over the same certificates the Secrets hold, once per render.
	dep := find(t, objs, "Deployment", "aim-apiserver")
	for _, a := range []string{"checksum/serving-cert", "checksum/etcd-client"} {
		if str(dep, "spec", "template", "metadata", "annotations", a) == "" {
			t.Errorf("Deployment lacks %s", a)
		}
	}
	if str(find(t, objs, "StatefulSet", "aim-etcd"), "spec", "template", "metadata", "annotations", "checksum/etcd-certs") == "" {
		t.Error("StatefulSet lacks checksum/etcd-certs")
	}
}

// ---- the other modes -----------------------------------------------------------------------------------------

const caPEM = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"

func TestChartExistingSecrets(t *testing.T) {
	objs := helmTemplate(t, "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=my-serving",
		"--set", "servingCert.caBundle="+caPEM, "--set", "etcd.certs.mode=existing",
		"--set", "etcd.certs.existingSecrets.server=my-etcd-server", "--set", "etcd.certs.existingSecrets.peer=my-etcd-peer",
		"--set", "etcd.certs.existingSecrets.client=my-etcd-client")
	for _, o := range objs {
		if o["kind"] == "Secret" || o["kind"] == "Certificate" || o["kind"] == "Issuer" {
			t.Errorf("existing Secrets, yet the chart renders %s", key(o))
		}
	}
	if got := str(find(t, objs, "APIService", "v1alpha1.aim.eai.amd.com"), "spec", "caBundle"); got != base64.StdEncoding.EncodeToString([]byte(caPEM)) {
		t.Errorf("caBundle %q is not servingCert.caBundle, base64", got)
	}
	want := map[string]string{"serving-cert": "my-serving", "etcd-client": "my-etcd-client"}
	if got := volumeSecrets(find(t, objs, "Deployment", "aim-apiserver")); !reflect.DeepEqual(got, want) {
		t.Errorf("Deployment mounts %v, want %v", got, want)
	}
	want = map[string]string{"server-tls": "my-etcd-server", "peer-tls": "my-etcd-peer"}
	if got := volumeSecrets(find(t, objs, "StatefulSet", "aim-etcd")); !reflect.DeepEqual(got, want) {
		t.Errorf("StatefulSet mounts %v, want %v", got, want)
	}
	for _, o := range []object{find(t, objs, "Deployment", "aim-apiserver"), find(t, objs, "StatefulSet", "aim-etcd")} {
		if a := mapAt(o, "spec", "template", "metadata", "annotations"); len(a) != 0 {
			t.Errorf("%s: checksum annotations without generated certificates: %v", key(o), a)
		}
	}

	// Without a caBundle the chart reads ca.crt from the cluster, which helm template cannot: it says so.
	msg := helmTemplateError(t, "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=my-serving")
	if !strings.Contains(msg, "servingCert.caBundle") {
		t.Errorf("error without caBundle does not name servingCert.caBundle:\n%s", msg)
	}
	// ... unless there is no APIService to fill.
	helmTemplate(t, "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=my-serving", "--set", "apiService.create=false")
	for _, args := range [][]string{
		{"--set", "servingCert.mode=existing"},
		{"--set", "etcd.certs.mode=existing", "--set", "etcd.certs.existingSecrets.server=a", "--set", "etcd.certs.existingSecrets.peer=b"},
	} {
		if msg := helmTemplateError(t, args...); !strings.Contains(msg, "is required") {
			t.Errorf("%v: %s", args, msg)
		}
	}
}

func TestChartExternalEtcd(t *testing.T) {
	objs := helmTemplate(t, "--set", "etcd.mode=external",
		"--set", "etcd.external.endpoints={https://etcd-0.example:2379,https://etcd-1.example:2379}",
		"--set", "etcd.external.clientSecret=my-etcd-client")
	for _, o := range objs {
		name := str(o, "metadata", "name")
		if strings.HasPrefix(name, "aim-etcd") || name == "aim-apiserver-etcd-client" {
			t.Errorf("external etcd, yet the chart renders %s", key(o))
		}
	}
	dep := find(t, objs, "Deployment", "aim-apiserver")
	if args := containerArgs(dep, "args"); !slices.Contains(args, "--etcd-servers=https://etcd-0.example:2379,https://etcd-1.example:2379") {
		t.Errorf("args lack the external endpoints: %v", args)
	}
	if got := volumeSecrets(dep)["etcd-client"]; got != "my-etcd-client" {
		t.Errorf("etcd client certificate from %q", got)
	}
	if got := str(dep, "spec", "template", "metadata", "annotations", "checksum/etcd-client"); got != "" {
		t.Error("checksum of an etcd client certificate the chart did not generate")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "etcd.mode=external", "--set", "etcd.external.clientSecret=c"}, "etcd.external.endpoints is required"},
		{[]string{"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://e:2379}"}, "etcd.external.clientSecret is required"},
		{[]string{"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={http://e:2379}", "--set", "etcd.external.clientSecret=c"}, "TLS only"},
		{[]string{"--set", "etcd.mode=embedded"}, "/etcd/mode"},
	} {
		if msg := helmTemplateError(t, c.args...); !strings.Contains(msg, c.want) {
			t.Errorf("%v: error lacks %q:\n%s", c.args, c.want, msg)
		}
	}
}

func TestChartValues(t *testing.T) {
	objs := helmTemplate(t, "--set", "image.tag=v9.9.9", "--set", "image.pullPolicy=Always", "--set", "replicas=3",
		"--set", "resources.limits.memory=2Gi", "--set", "extraArgs={--controller-workers=4,--image-metadata-registries=ghcr.io}",
		"--set", "flags.etcdRequestTimeout=20s", "--set", "etcd.replicas=5", "--set", "etcd.storage.size=50Gi",
		"--set", "etcd.storage.storageClassName=fast", "--set", "etcd.image.tag=3.6.5-0", "--set", "apiService.create=false")
	dep := find(t, objs, "Deployment", "aim-apiserver")
	c := field(dep, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	if c["image"] != "ghcr.io/aim-apiserver/aim-apiserver:v9.9.9" || c["imagePullPolicy"] != "Always" {
		t.Errorf("image %v, pull policy %v", c["image"], c["imagePullPolicy"])
	}
	if field(dep, "spec", "replicas") != float64(3) {
		t.Errorf("replicas %v", field(dep, "spec", "replicas"))
	}
	if got := field(c, "resources", "limits", "memory"); got != "2Gi" {
		t.Errorf("memory limit %v", got)
	}
	args := containerArgs(dep, "args")
	if n := len(args); n < 2 || args[n-2] != "--controller-workers=4" || args[n-1] != "--image-metadata-registries=ghcr.io" ||
		!slices.Contains(args, "--etcd-request-timeout=20s") {
		t.Errorf("args %v", args)
	}
	sts := find(t, objs, "StatefulSet", "aim-etcd")
	if field(sts, "spec", "replicas") != float64(5) {
		t.Errorf("etcd replicas %v", field(sts, "spec", "replicas"))
	}
	if cmd := containerArgs(sts, "command"); !slices.Contains(cmd, "--initial-cluster=aim-etcd-0=https://aim-etcd-0.aim-etcd.$(POD_NAMESPACE).svc:2380,"+
		"aim-etcd-1=https://aim-etcd-1.aim-etcd.$(POD_NAMESPACE).svc:2380,aim-etcd-2=https://aim-etcd-2.aim-etcd.$(POD_NAMESPACE).svc:2380,"+
		"aim-etcd-3=https://aim-etcd-3.aim-etcd.$(POD_NAMESPACE).svc:2380,aim-etcd-4=https://aim-etcd-4.aim-etcd.$(POD_NAMESPACE).svc:2380") {
		t.Errorf("initial cluster of 5 members missing: %v", cmd)
	}
	pvc := field(sts, "spec", "volumeClaimTemplates").([]any)[0].(map[string]any)
	if field(pvc, "spec", "storageClassName") != "fast" || field(pvc, "spec", "resources", "requests", "storage") != "50Gi" {
		t.Errorf("volume claim %v", pvc["spec"])
	}
	if has(objs, "APIService", "v1alpha1.aim.eai.amd.com") {
		t.Error("apiService.create=false renders the APIService")
	}
	if msg := helmTemplateError(t, "--set", "etcd.replicas=2"); !strings.Contains(msg, "/etcd/replicas") {
		t.Errorf("even etcd.replicas accepted: %s", msg)
	}
}

// The default AIMClusterRuntimeConfig is rendered only where its API is served (helm install/upgrade read that
// from discovery; helm template takes --api-versions).
func TestChartDefaultRuntimeConfig(t *testing.T) {
	const api = "aim.eai.amd.com/v1alpha1/AIMClusterRuntimeConfig"
	if objs := helmTemplate(t, "--set", "defaultRuntimeConfig.enabled=true"); has(objs, "AIMClusterRuntimeConfig", "default") {
		t.Error("rendered the default AIMClusterRuntimeConfig although its API is not served")
	}
	if objs := helmTemplate(t, "--api-versions", api); has(objs, "AIMClusterRuntimeConfig", "default") {
		t.Error("rendered the default AIMClusterRuntimeConfig although it is not enabled")
	}
	objs := helmTemplate(t, "--api-versions", api, "--set", "defaultRuntimeConfig.enabled=true",
		"--set", "defaultRuntimeConfig.spec.discovery.maxConcurrentJobs=5")
	rc := find(t, objs, "AIMClusterRuntimeConfig", "default")
	if rc["apiVersion"] != "aim.eai.amd.com/v1alpha1" || field(rc, "spec", "discovery", "maxConcurrentJobs") != float64(5) {
		t.Errorf("default runtime config %v", rc)
	}
}

func TestChartServiceMonitor(t *testing.T) {
	if objs := helmTemplate(t); has(objs, "ServiceMonitor", "aim-apiserver") || has(objs, "ClusterRole", "aim-apiserver-metrics-reader") {
		t.Error("ServiceMonitor rendered although monitoring is off by default")
	}
	objs := helmTemplate(t, "--set", "monitoring.serviceMonitor.enabled=true", "--set", "monitoring.serviceMonitor.labels.release=prom",
		"--set", "monitoring.serviceMonitor.prometheusServiceAccount.name=prometheus",
		"--set", "monitoring.serviceMonitor.prometheusServiceAccount.namespace=monitoring")
	sm := find(t, objs, "ServiceMonitor", "aim-apiserver")
	if sm["apiVersion"] != "monitoring.coreos.com/v1" || str(sm, "metadata", "labels", "release") != "prom" {
		t.Errorf("ServiceMonitor %v", sm["metadata"])
	}
	ep := field(sm, "spec", "endpoints").([]any)[0].(map[string]any)
	if ep["port"] != "https" || ep["scheme"] != "https" || field(ep, "tlsConfig", "serverName") != "aim-apiserver.aim-system.svc" ||
		field(ep, "tlsConfig", "ca", "secret", "name") != "aim-apiserver-serving-cert" {
		t.Errorf("endpoint %v", ep)
	}
	// It selects the Service aim-apiserver by labels that Service carries.
	svcLabels := mapAt(find(t, objs, "Service", "aim-apiserver"), "metadata", "labels")
	for k, v := range mapAt(sm, "spec", "selector", "matchLabels") {
		if svcLabels[k] != v {
			t.Errorf("ServiceMonitor selects %s=%v; the Service has %v", k, v, svcLabels[k])
		}
	}
	find(t, objs, "ClusterRole", "aim-apiserver-metrics-reader")
	crb := find(t, objs, "ClusterRoleBinding", "aim-apiserver-metrics-reader")
	if s := field(crb, "subjects").([]any)[0].(map[string]any); s["name"] != "prometheus" || s["namespace"] != "monitoring" {
		t.Errorf("metrics reader bound to %v", s)
	}
}

// ---- lint ----------------------------------------------------------------------------------------------------

func TestChartLint(t *testing.T) {
	for name, args := range map[string][]string{
		"defaults":     nil,
		"cert-manager": {"--set", "servingCert.mode=certManager", "--set", "etcd.certs.mode=certManager"},
		"existing secrets": {"--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=s", "--set", "servingCert.caBundle=" + caPEM,
			"--set", "etcd.certs.mode=existing", "--set", "etcd.certs.existingSecrets.server=a", "--set", "etcd.certs.existingSecrets.peer=b",
			"--set", "etcd.certs.existingSecrets.client=c"},
		"external etcd": {"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://etcd.example:2379}",
			"--set", "etcd.external.clientSecret=c"},
		"migration":  {"--set", "apiService.create=false", "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=s"},
		"everything": {"--set", "createNamespace=true", "--set", "monitoring.serviceMonitor.enabled=true", "--set", "defaultRuntimeConfig.enabled=true"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := command(t, helmBin, append([]string{"lint", "--strict", chartDir, "--namespace", namespace}, args...)...)
			if err != nil || !strings.Contains(out, "0 chart(s) failed") {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "[WARNING]") || strings.HasPrefix(line, "[ERROR]") {
					t.Errorf("lint: %s", line)
				}
			}
		})
	}
}
