package server

import (
	"bytes"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"cluster mode needs etcd", nil, "--etcd-servers is required"},
		{"cluster mode", []string{"--etcd-servers=http://127.0.0.1:2379"}, ""},
		{"local mode needs a data dir", []string{"--local"}, "--data-dir is required"},
		{"local mode", []string{"--local", "--data-dir=/tmp/x"}, ""},
		{"local mode embeds etcd", []string{"--local", "--data-dir=/tmp/x", "--etcd-servers=http://127.0.0.1:2379"}, "exclusive"},
		{"local mode is loopback only", []string{"--local", "--data-dir=/tmp/x", "--authorization-kubeconfig=/k"}, "cluster-mode flag"},
		{"no-fsync needs local", []string{"--etcd-servers=http://e:2379", "--local-etcd-unsafe-no-fsync"}, "needs --local"},
		{"self-managed certificate", []string{"--etcd-servers=http://e:2379", "--serving-cert-secret=aim-system/cert"}, ""},
		{"self-managed certificate needs namespace/name", []string{"--etcd-servers=http://e:2379", "--serving-cert-secret=cert"}, "want namespace/name"},
		{"self-managed certificate or files", []string{"--etcd-servers=http://e:2379", "--serving-cert-secret=a/b", "--tls-cert-file=/c"}, "exclusive"},
		{"self-managed certificate in cluster mode", []string{"--local", "--data-dir=/tmp/x", "--serving-cert-secret=a/b"}, "cluster-mode flag"},
		{"certificate validity", []string{"--etcd-servers=http://e:2379", "--serving-cert-secret=a/b", "--serving-cert-validity=10m"}, "shorter than an hour"},
		{"default runtime config", []string{"--etcd-servers=http://e:2379", "--default-runtime-config-configmap=aim-system/rc"}, ""},
		{"default runtime config needs namespace/name", []string{"--etcd-servers=http://e:2379", "--default-runtime-config-configmap=a/b/c"}, "want namespace/name"},
		{"default runtime config in cluster mode", []string{"--local", "--data-dir=/tmp/x", "--default-runtime-config-configmap=a/b"}, "cluster-mode flag"},
		{"memory limit off", []string{"--etcd-servers=http://e:2379", "--memory-limit-ratio=0"}, ""},
		{"memory limit of the whole container", []string{"--etcd-servers=http://e:2379", "--memory-limit-ratio=1"}, ""},
		{"memory limit over the container's", []string{"--etcd-servers=http://e:2379", "--memory-limit-ratio=1.5"}, "--memory-limit-ratio must be from 0 (off) to 1"},
		{"memory limit below 0", []string{"--etcd-servers=http://e:2379", "--memory-limit-ratio=-0.1"}, "--memory-limit-ratio must be from 0 (off) to 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions(io.Discard)
			cmd := NewCommand(t.Context(), o)
			if err := cmd.Flags().Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := o.Complete(); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
			if tc.wantErr == "" && o.Local.Enabled && !o.RecommendedOptions.SecureServing.BindAddress.IsLoopback() {
				t.Errorf("local mode binds %s", o.RecommendedOptions.SecureServing.BindAddress)
			}
		})
	}
}

// TestStorageCodec: objects are stored in --storage-media-type (protobuf unless told), and objects in the
// other encoding still decode, so JSON written by an earlier release stays readable.
func TestStorageCodec(t *testing.T) {
	svc := &aim.AIMService{
		ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team"},
		Spec:       aim.AIMServiceSpec{Model: aim.AIMServiceModel{Name: ptr.To("qwen")}, Replicas: ptr.To[int32](2)},
	}
	encoded := map[string][]byte{}
	for _, tc := range []struct {
		args   []string
		prefix string
	}{
		{nil, "k8s\x00"},
		{[]string{"--storage-media-type=application/json"}, `{"kind":"AIMService","apiVersion":"aim.eai.amd.com/v1alpha1"`},
	} {
		o := NewOptions(io.Discard)
		if err := NewCommand(t.Context(), o).Flags().Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		e := o.RecommendedOptions.Etcd
		if err := apiserver.ApplyStorageCodec(e); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := e.StorageConfig.Codec.Encode(svc, &buf); err != nil {
			t.Fatalf("%v: encode: %v", tc.args, err)
		}
		if !strings.HasPrefix(buf.String(), tc.prefix) {
			t.Errorf("%v: stored as %q, want prefix %q", tc.args, buf.String(), tc.prefix)
		}
		encoded[e.DefaultStorageMediaType] = buf.Bytes()
	}
	if len(encoded) != 2 {
		t.Fatalf("media types %v", slices.Collect(maps.Keys(encoded)))
	}
	for _, mediaType := range []string{"application/json", runtime.ContentTypeProtobuf} {
		o := NewOptions(io.Discard)
		o.RecommendedOptions.Etcd.DefaultStorageMediaType = mediaType
		if err := apiserver.ApplyStorageCodec(o.RecommendedOptions.Etcd); err != nil {
			t.Fatal(err)
		}
		for stored, data := range encoded {
			got, _, err := o.RecommendedOptions.Etcd.StorageConfig.Codec.Decode(data, nil, &aim.AIMService{})
			if err != nil {
				t.Fatalf("codec for %s reading %s: %v", mediaType, stored, err)
			}
			s := got.(*aim.AIMService)
			if s.Name != "chat" || *s.Spec.Model.Name != "qwen" || *s.Spec.Replicas != 2 {
				t.Errorf("codec for %s reading %s: %+v", mediaType, stored, s)
			}
		}
	}
}
